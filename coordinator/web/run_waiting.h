// How the pages show why a run waits (RunStatus.waiting) and the runs a worker declines
// (WorkerStatus.declined).
#pragma once

#include <string>

#include "sparring/v1/user.pb.h"

namespace sparring::coordinator::web {

// Returns whether an active run waits: no lease out, and reasons.
bool run_waits(const v1::RunStatus& run);
// Returns a run's state as the pages show it: "waiting" for a waiting run, else its state.
std::string shown_state(const v1::RunStatus& run);
// Returns why a run waits in one line of text, "Waiting: " and the reasons joined (a run some
// workers play: "Declined by other workers: ..."; "" when nothing keeps it).
std::string waiting_text(const v1::RunStatus& run);
// Returns the runs a worker declines as HTML: "run 7: lacks ..." with links, "" when none.
std::string declined_html(const v1::WorkerStatus& worker);

}  // namespace sparring::coordinator::web
