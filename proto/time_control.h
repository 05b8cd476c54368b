// Time controls between the protocol and the one form the rest of the project uses
// (common/time_control.h): read, written, and shown as the CLI and the dashboard show them.
#pragma once

#include <optional>
#include <string>

#include "common/time_control.h"
#include "sparring/v1/common.pb.h"

namespace sparring {

// Returns the time control of a message, or nullopt when it sets no limit; values past the
// int range of TimeControl are capped at 1,000,000,000 (far beyond any the coordinator takes).
std::optional<TimeControl> time_control_from_proto(const v1::TimeControl& in);
// Writes a time control into a message.
void time_control_to_proto(const TimeControl& in, v1::TimeControl* out);
// Returns a time control as `--tc` takes it ("nodes=1000", "10+0.1", "movetime=500"), or
// "none" when it has no limit (a training run's).
std::string time_control_text(const v1::TimeControl& tc);

}  // namespace sparring
