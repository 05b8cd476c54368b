// Logs the domain events worth a line: one logfmt line each (see log.h), with the event names
// and fields the coordinator has always logged.
#pragma once

#include "coordinator/domain/events.h"

namespace sparring::coordinator {

// Subscribes the log to the bus for as long as the subscription lives.
[[nodiscard]] EventBus::Subscription log_events(EventBus& bus);

}  // namespace sparring::coordinator
