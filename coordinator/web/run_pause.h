// How the run page shows a run paused for faults (RunStatus.pause) and how to resume it.
#pragma once

#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring::coordinator::web {

// Returns the pause of a paused run as an HTML paragraph ("" for a run not paused): the version
// and engine at fault, the fault and its games, the count against the bound, an example game,
// and the command that resumes it.
std::string pause_html(const v1::RunStatus& run);

}  // namespace sparring::coordinator::web
