// A worker's fleet controls (v1::WorkerControls, issue 52) as `sparring workers` and the
// dashboard write them.
#pragma once

#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring {

// Returns the controls a worker registered with, joined with "; " ("only node- and
// depth-limited runs; Alice's runs first; 2 to 4 threads; cores performance; exits after 600 s
// idle"), or "" when it has none.
std::string worker_controls_text(const v1::WorkerControls& controls);

}  // namespace sparring
