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

bool served_before(const RunCandidate& a, const RunCandidate& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    // Cores per throughput, cross-multiplied: exact, so the order is total.
    const int64_t load_a = int64_t(a.active_cores) * std::max(b.throughput, 1);
    const int64_t load_b = int64_t(b.active_cores) * std::max(a.throughput, 1);
    if (load_a != load_b) return load_a < load_b;
    return a.run_id < b.run_id;
}

std::optional<int64_t> choose_run(std::span<const RunCandidate> runs, const WorkerProfile& worker) {
    const RunCandidate* best = nullptr;
    for (const RunCandidate& run : runs)
        if (incapability(run, worker).empty() && (!best || served_before(run, *best))) best = &run;
    if (!best) return std::nullopt;
    return best->run_id;
}

void CandidatePool::touch(int64_t run_id) {
    std::lock_guard lock(touched_mutex_);
    if (loaded_) touched_.insert(run_id);
}

std::vector<int64_t> CandidatePool::take_touched(bool* all) {
    std::lock_guard lock(touched_mutex_);
    *all = !loaded_;
    if (*all) {
        std::lock_guard order_lock(mutex_);
        order_.clear();
        entries_.clear();
        loaded_ = true;
    }
    std::vector<int64_t> touched(touched_.begin(), touched_.end());
    touched_.clear();
    return touched;
}

void CandidatePool::put(RunCandidate run) {
    std::lock_guard lock(mutex_);
    if (const auto found = entries_.find(run.run_id); found != entries_.end()) {
        order_.erase(found->second);
        entries_.erase(found);
    }
    const int64_t id = run.run_id;
    entries_.emplace(id, order_.insert(std::move(run)).first);
}

void CandidatePool::remove(int64_t run_id) {
    std::lock_guard lock(mutex_);
    if (const auto found = entries_.find(run_id); found != entries_.end()) {
        order_.erase(found->second);
        entries_.erase(found);
    }
}

std::optional<int64_t> CandidatePool::first(
    const std::function<bool(const RunCandidate&)>& accept) const {
    std::lock_guard lock(mutex_);
    for (const RunCandidate& run : order_)
        if (accept(run)) return run.run_id;
    return std::nullopt;
}

size_t CandidatePool::size() const {
    std::lock_guard lock(mutex_);
    return order_.size();
}

}  // namespace sparring::coordinator
