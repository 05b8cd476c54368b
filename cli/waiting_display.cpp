#include "cli/waiting_display.h"

#include <iostream>

#include "cli/run_display.h"

namespace sparring::cli {

bool is_waiting(const v1::RunStatus& run) {
    return run.state() == v1::RUN_STATE_ACTIVE && run.active_workers() == 0 &&
           run.waiting_size() > 0;
}

std::string listed_state(const v1::RunStatus& run) {
    return is_waiting(run) ? "waiting" : state_name(run.state());
}

void add_waiting_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    // A run some workers play: the others' reasons, which keep it from more of them.
    const char* label = is_waiting(run) ? "waiting" : "declined";
    for (const v1::WaitingReason& reason : run.waiting()) rows.push_back({label, reason.line()});
}

bool warn_unplayable(const v1::RunStatus& run) {
    if (!run.unplayable()) return false;
    std::cerr << "warning: no connected worker can play run " << run.id() << " ("
              << run.connected_workers() << (run.connected_workers() == 1 ? " worker" : " workers")
              << " connected); it waits:\n";
    for (const v1::WaitingReason& reason : run.waiting())
        std::cerr << "  " << reason.line() << "\n";
    return true;
}

}  // namespace sparring::cli
