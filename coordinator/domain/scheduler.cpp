#include "coordinator/domain/scheduler.h"

#include <algorithm>

namespace sparring::coordinator {

int games_at_once(int concurrency, int threads) {
    return concurrency / std::max(threads, 1);
}

std::string incapability(const RunCandidate& run, const WorkerProfile& worker) {
    if (std::find(worker.barred_runs.begin(), worker.barred_runs.end(), run.run_id) !=
        worker.barred_runs.end())
        return "barred from the run (its results were implausible, or purged)";
    if (run.uploaded_engines && !worker.accepts_uploaded_engines)
        return "does not accept uploaded engines";
    if (std::find(worker.failed_runs.begin(), worker.failed_runs.end(), run.run_id) !=
        worker.failed_runs.end())
        return "failed the run's leases too often (engine failures)";
    for (const std::string& command : run.uci_commands)
        if (std::find(worker.uci_engines.begin(), worker.uci_engines.end(), command) ==
            worker.uci_engines.end())
            return "lacks the UCI engine '" + command + "'";
    for (int64_t version : run.version_ids)
        if (std::find(worker.refused_versions.begin(), worker.refused_versions.end(), version) !=
            worker.refused_versions.end())
            return "refused version " + std::to_string(version) + " (bench mismatch)";
    const int games = games_at_once(worker.concurrency, run.threads);
    if (games == 0)
        return "has " + std::to_string(worker.concurrency) + " cores, a game of the run needs " +
               std::to_string(run.threads);
    // Checked: stored figures predate their bounds, and an overflow must not wrap to "fits".
    int64_t needed = 0;
    if (run.memory_mb_per_game < 0 ||
        __builtin_mul_overflow(run.memory_mb_per_game, int64_t(games), &needed))
        return "needs more memory than can be counted";
    if (needed > worker.memory_mb)
        return "has " + std::to_string(worker.memory_mb) + " MiB, needs " + std::to_string(needed) +
               " MiB";
    return {};
}

std::optional<int64_t> choose_run(std::span<const RunCandidate> runs, const WorkerProfile& worker) {
    const RunCandidate* best = nullptr;
    // Orders by priority, then by cores per throughput (cross-multiplied), then by age.
    const auto better = [](const RunCandidate& a, const RunCandidate& b) {
        if (a.priority != b.priority) return a.priority > b.priority;
        const int64_t load_a = int64_t(a.active_cores) * std::max(b.throughput, 1);
        const int64_t load_b = int64_t(b.active_cores) * std::max(a.throughput, 1);
        if (load_a != load_b) return load_a < load_b;
        return a.run_id < b.run_id;
    };
    for (const RunCandidate& run : runs)
        if (incapability(run, worker).empty() && (!best || better(run, *best))) best = &run;
    if (!best) return std::nullopt;
    return best->run_id;
}

}  // namespace sparring::coordinator
