// Core: the workers seen lately, each with the run it plays and its fit in that run.
#include <algorithm>
#include <map>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

std::vector<WorkerSummary> Core::list_workers(Storage& storage, bool include_inactive) const {
    const int64_t since = include_inactive ? 0 : now_ms_() - 3 * options_.heartbeat_interval_ms;
    std::vector<WorkerSummary> workers = storage.list_workers(since);
    // The run it plays now, else the one it reported to last: a quarantined worker shows
    // why it gets no lease. Each run's fits are computed once for all its workers (per
    // worker it was quadratic: 4,000 workers of one run took /metrics seconds).
    std::map<int64_t, std::map<int64_t, WorkerFit>> fits_of_run;
    for (WorkerSummary& w : workers) {
        w.speeds = storage.worker_speeds(w.worker.id);
        const std::optional<int64_t> run_id =
            w.run_id ? std::optional(w.run_id) : storage.last_reported_run(w.worker.id);
        if (!run_id) continue;
        auto fits = fits_of_run.find(*run_id);
        if (fits == fits_of_run.end()) {
            fits = fits_of_run.emplace(*run_id, std::map<int64_t, WorkerFit>()).first;
            if (const std::optional<Run> run = storage.find_run(*run_id))
                for (WorkerFit& fit : worker_fits(storage, *run))
                    fits->second.emplace(fit.worker_id, std::move(fit));
        }
        if (auto fit = fits->second.find(w.worker.id); fit != fits->second.end())
            w.fit = fit->second;
    }
    // The active runs each connected worker cannot play, and why.
    if (std::any_of(workers.begin(), workers.end(),
                    [this](const WorkerSummary& w) { return is_active(w.worker.last_seen_ms); })) {
        const WaitingBoard board = waiting_board(storage);
        for (WorkerSummary& w : workers)
            if (is_active(w.worker.last_seen_ms)) w.declined = board.declined_by(w.worker.id);
    }
    return workers;
}

int64_t Core::count_active_workers(Storage& storage) const {
    return int64_t(storage.list_workers(now_ms_() - 3 * options_.heartbeat_interval_ms).size());
}

bool Core::is_active(int64_t last_seen_ms) const {
    return last_seen_ms >= now_ms_() - 3 * options_.heartbeat_interval_ms;
}

}  // namespace sparring::coordinator
