#include "coordinator/domain/scheduler.h"

#include <algorithm>

#include "common/engine_builds.h"

namespace sparring::coordinator {

namespace {

// Returns why the worker runs no build of one of the run's uploaded versions, if it does not.
std::optional<Decline> builds_decline(const RunCandidate& run, const WorkerProfile& worker) {
    for (const CandidateBuilds& version : run.builds) {
        std::vector<std::string> refused;
        for (const RefusedBuild& r : worker.refused_builds)
            if (r.version_id == version.version_id) refused.push_back(r.level);
        if (best_build(version.levels, worker.isa_levels, refused)) continue;
        return Decline{WaitReason::NoBuild,
                       "no build of version " + version.version + " runs on its CPU (" +
                           no_build_text(version.levels, worker.isa_levels, refused) + ")",
                       "no build of " + version.version + " for its CPU"};
    }
    return std::nullopt;
}

}  // namespace

int games_at_once(int concurrency, int threads) {
    return concurrency / std::max(threads, 1);
}

const char* wait_reason_name(WaitReason reason) {
    switch (reason) {
        case WaitReason::Barred:
            return "barred";
        case WaitReason::NoUploads:
            return "no_uploads";
        case WaitReason::Failed:
            return "failed";
        case WaitReason::NoEngine:
            return "no_engine";
        case WaitReason::RefusedVersion:
            return "refused_version";
        case WaitReason::FewCores:
            return "cores";
        case WaitReason::Memory:
            return "memory";
        case WaitReason::Quarantined:
            return "quarantined";
        case WaitReason::TooSlow:
            return "too_slow";
        case WaitReason::Outranked:
            return "outranked";
        case WaitReason::Busy:
            return "busy";
        case WaitReason::NoWorkers:
            return "no_workers";
        case WaitReason::NoBuild:
            return "no_build";
        case WaitReason::NodesOnly:
            return "nodes_only";
        case WaitReason::Threads:
            return "threads";
    }
    return "unknown";
}

std::optional<Decline> decline(const RunCandidate& run, const WorkerProfile& worker) {
    const auto has = [](const auto& list, const auto& item) {
        return std::find(list.begin(), list.end(), item) != list.end();
    };
    if (std::optional<Decline> d = controls_decline(run, worker.controls)) return d;
    if (has(worker.barred_runs, run.run_id))
        return Decline{WaitReason::Barred,
                       "barred from the run (its results were implausible, or purged)",
                       "barred from the run (purged, or its results were implausible)"};
    if (run.uploaded_engines && !worker.accepts_uploaded_engines)
        return Decline{WaitReason::NoUploads, "does not accept uploaded engines",
                       "no uploaded engines (not accepted, or no sandbox)"};
    if (has(worker.failed_runs, run.run_id))
        return Decline{WaitReason::Failed, "failed the run's leases too often (engine failures)",
                       "failed the run's leases too often"};
    for (const std::string& command : run.uci_commands)
        if (!has(worker.uci_engines, command))
            return Decline{WaitReason::NoEngine, "lacks the UCI engine '" + command + "'",
                           "no " + command};
    for (int64_t version : run.version_ids)
        if (has(worker.refused_versions, version))
            return Decline{WaitReason::RefusedVersion,
                           "refused version " + std::to_string(version) + " (bench mismatch)",
                           "refused version " + std::to_string(version) + " (bench mismatch)"};
    if (std::optional<Decline> d = builds_decline(run, worker)) return d;
    const int games = games_at_once(worker.concurrency, run.threads);
    if (games == 0)
        return Decline{WaitReason::FewCores,
                       "has " + std::to_string(worker.concurrency) +
                           " cores, a game of the run needs " + std::to_string(run.threads),
                       "fewer than " + std::to_string(run.threads) + " cores"};
    // Checked: stored figures predate their bounds, and an overflow must not wrap to "fits".
    int64_t needed = 0;
    if (run.memory_mb_per_game < 0 ||
        __builtin_mul_overflow(run.memory_mb_per_game, int64_t(games), &needed))
        return Decline{WaitReason::Memory, "needs more memory than can be counted",
                       "not enough memory"};
    if (needed > worker.memory_mb)
        return Decline{
            WaitReason::Memory,
            "has " + std::to_string(worker.memory_mb) + " MiB, needs " + std::to_string(needed) +
                " MiB",
            "less than " + std::to_string(run.memory_mb_per_game) + " MiB of memory a game"};
    return std::nullopt;
}

std::string incapability(const RunCandidate& run, const WorkerProfile& worker) {
    std::optional<Decline> d = decline(run, worker);
    return d ? std::move(d->text) : std::string();
}

bool served_before_within_owner(const RunCandidate& a, const RunCandidate& b) {
    // Cores per throughput, cross-multiplied: exact, so the order is total.
    const int64_t load_a = int64_t(a.active_cores) * std::max(b.throughput, 1);
    const int64_t load_b = int64_t(b.active_cores) * std::max(a.throughput, 1);
    if (load_a != load_b) return load_a < load_b;
    return a.run_id < b.run_id;
}

OwnerShares owner_shares(std::span<const RunCandidate> runs) {
    OwnerShares shares;
    for (const RunCandidate& run : runs) {
        OwnerShare& share = shares[{run.priority, run.owner}];
        share.cores += run.active_cores;
        share.pairs += run.served_pairs;
    }
    return shares;
}

bool owner_served_before(const OwnerShare& a, const std::string& owner_a, const OwnerShare& b,
                         const std::string& owner_b) {
    if (a.cores != b.cores) return a.cores < b.cores;
    if (a.pairs != b.pairs) return a.pairs < b.pairs;
    return owner_a < owner_b;
}

bool served_before(const RunCandidate& a, const RunCandidate& b, const OwnerShares& shares) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.owner != b.owner) {
        const auto of = [&shares](const RunCandidate& run) {
            const auto found = shares.find({run.priority, run.owner});
            return found == shares.end() ? OwnerShare{} : found->second;
        };
        return owner_served_before(of(a), a.owner, of(b), b.owner);
    }
    return served_before_within_owner(a, b);
}

std::optional<int64_t> choose_run(std::span<const RunCandidate> runs, const WorkerProfile& worker) {
    const OwnerShares shares = owner_shares(runs);
    // The preferred owner's runs first (--prefer-owner), then the usual order.
    const auto first = [&worker, &shares](const RunCandidate& a, const RunCandidate& b) {
        const bool preferred = preferred_run(a, worker);
        return preferred != preferred_run(b, worker) ? preferred : served_before(a, b, shares);
    };
    const RunCandidate* best = nullptr;
    for (const RunCandidate& run : runs)
        if (run.leasable && incapability(run, worker).empty() && (!best || first(run, *best)))
            best = &run;
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
        groups_.clear();
        leasable_ = 0;
        loaded_ = true;
    }
    std::vector<int64_t> touched(touched_.begin(), touched_.end());
    touched_.clear();
    return touched;
}

bool CandidatePool::GroupOrder::operator()(const Group* a, const Group* b) const {
    if (a->priority != b->priority) return a->priority > b->priority;
    return owner_served_before(a->share, a->owner, b->share, b->owner);
}

void CandidatePool::remove_locked(int64_t run_id) {
    const auto found = entries_.find(run_id);
    if (found == entries_.end()) return;
    Group* group = found->second.group;
    // Out of the order before its key (its cores, its runs) changes.
    if (!group->runs.empty()) order_.erase(group);
    if (found->second.run) {
        group->runs.erase(*found->second.run);
        --leasable_;
    }
    group->share.cores -= found->second.share.cores;
    group->share.pairs -= found->second.share.pairs;
    entries_.erase(found);
    if (--group->members == 0)
        groups_.erase({group->priority, group->owner});
    else if (!group->runs.empty())
        order_.insert(group);
}

void CandidatePool::put(RunCandidate run) {
    std::lock_guard lock(mutex_);
    remove_locked(run.run_id);
    auto [place, added] = groups_.try_emplace({run.priority, run.owner});
    Group* group = &place->second;
    if (added) {
        group->priority = run.priority;
        group->owner = run.owner;
    }
    if (!group->runs.empty()) order_.erase(group);
    Entry entry;
    entry.group = group;
    entry.share = {run.active_cores, run.served_pairs};
    group->share.cores += entry.share.cores;
    group->share.pairs += entry.share.pairs;
    ++group->members;
    const int64_t id = run.run_id;
    if (run.leasable) {
        entry.run = group->runs.insert(std::move(run)).first;
        ++leasable_;
    }
    if (!group->runs.empty()) order_.insert(group);
    entries_.emplace(id, entry);
}

void CandidatePool::remove(int64_t run_id) {
    std::lock_guard lock(mutex_);
    remove_locked(run_id);
}

std::optional<int64_t> CandidatePool::first(
    const std::function<bool(const RunCandidate&)>& accept) const {
    std::lock_guard lock(mutex_);
    for (const Group* group : order_)
        for (const RunCandidate& run : group->runs)
            if (accept(run)) return run.run_id;
    return std::nullopt;
}

size_t CandidatePool::size() const {
    std::lock_guard lock(mutex_);
    return leasable_;
}

OwnerShare CandidatePool::share_of(int priority, const std::string& owner) const {
    std::lock_guard lock(mutex_);
    const auto found = groups_.find({priority, owner});
    return found == groups_.end() ? OwnerShare{} : found->second.share;
}

}  // namespace sparring::coordinator
