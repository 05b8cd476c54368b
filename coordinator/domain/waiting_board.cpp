// Core: what tells why runs wait (waiting.h), read from storage for a read of runs or workers.
#include <algorithm>
#include <map>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

WaitingBoard Core::waiting_board(Storage& storage, const std::vector<Run>* runs) const {
    WaitingBoard board;
    const int64_t now = now_ms_();
    board.rule = {options_.min_clock_factor, options_.max_clock_factor, options_.speed_max_age_ms,
                  now};
    std::vector<Run> active;
    if (!runs) active = storage.list_runs({RunState::Active}, 1'000'000);
    bool scaled = false;
    for (const Run& run : runs ? *runs : active) {
        if (run.state != RunState::Active || run.pairs_available() == 0) continue;
        WaitingRun waiting;
        waiting.candidate = candidate_of(storage, run);
        waiting.test_id = run.test_id;
        waiting.reference_nps = run.spec.reference_nps;
        waiting.served = run.active_leases > 0;
        if (options_.quarantine_p > 0)
            for (const WorkerFit& fit : worker_fits(storage, run))
                if (fit.quarantined) waiting.quarantined.insert(fit.worker_id);
        scaled = scaled || run.spec.reference_nps > 0;
        board.runs.emplace(run.id, std::move(waiting));
    }
    if (board.runs.empty()) return board;
    std::map<int64_t, int> priorities;  // of the runs the workers play
    for (const WorkerSummary& summary :
         storage.list_workers(now - 3 * options_.heartbeat_interval_ms)) {
        ConnectedWorker worker;
        worker.id = summary.worker.id;
        worker.profile = profile_of(storage, summary.worker);
        worker.run_id = summary.run_id;
        if (worker.run_id != 0) {
            auto priority = priorities.find(worker.run_id);
            if (priority == priorities.end()) {
                const std::optional<Run> played = storage.find_run(worker.run_id);
                priority =
                    priorities.emplace(worker.run_id, played ? played->spec.priority : 0).first;
            }
            worker.run_priority = priority->second;
        }
        if (scaled) worker.speeds = storage.worker_speeds(worker.id);
        board.workers.push_back(std::move(worker));
    }
    std::sort(board.workers.begin(), board.workers.end(),
              [](const ConnectedWorker& a, const ConnectedWorker& b) { return a.id < b.id; });
    return board;
}

}  // namespace sparring::coordinator
