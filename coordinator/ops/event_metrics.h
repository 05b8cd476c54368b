// Feeds the metrics' counters from the domain events (reports and the games they carried).
#pragma once

#include "coordinator/domain/events.h"
#include "coordinator/ops/metrics.h"

namespace sparring::coordinator {

// Subscribes the metrics to the bus for as long as the subscription lives.
[[nodiscard]] EventBus::Subscription count_events(EventBus& bus, Metrics& metrics);

}  // namespace sparring::coordinator
