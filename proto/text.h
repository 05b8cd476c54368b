// The protocol's values as text, the one form the CLI and the dashboard both show.
#pragma once

#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring {

// Returns a time control as `--tc` takes it ("nodes=1000", "10+0.1", "movetime=500"), or
// "none" when it has no limit (a training run's).
std::string time_control_text(const v1::TimeControl& tc);

}  // namespace sparring
