// The protocol's values as the CLI and the dashboard both write them.
#pragma once

#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring {

// Returns a follow-up as `show` and the run page give it: "on H1: 60+0.6, SPRT [0.50, 2.50],
// 200 games" (the SPRT and games only when they differ from the first run's).
std::string follow_up_text(const v1::FollowUp& follow_up);

}  // namespace sparring
