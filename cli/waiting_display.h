// How the CLI prints why a run waits (RunStatus.waiting).
#pragma once

#include <string>
#include <vector>

#include "cli/client.h"

namespace sparring::cli {

// Returns whether `runs` calls an active run "waiting": no lease out, and reasons.
bool is_waiting(const v1::RunStatus& run);
// Returns the run's state for the runs table: "waiting" for a waiting run, else its state.
std::string listed_state(const v1::RunStatus& run);
// Adds a "waiting" row per reason a run waits ("declined" while other workers play it).
void add_waiting_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows);
// Prints, on stderr, that no connected worker can play a run just submitted, with the reasons;
// returns whether it did.
bool warn_unplayable(const v1::RunStatus& run);

}  // namespace sparring::cli
