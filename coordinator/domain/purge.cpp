// Core: each worker's fit in a run (the test of its pairs against the rest of its CPU class's,
// class_stats.h) and purging a worker's games from a run.
#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "coordinator/domain/class_stats.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

namespace {

// Returns the run's counts without the worker's, never below zero.
stats::Pentanomial rest_of(const Counts& run, const Counts& worker) {
    stats::Pentanomial rest;
    for (size_t i = 0; i < rest.counts.size(); ++i)
        rest.counts[i] = std::max<int64_t>(0, run.penta.counts[i] - worker.penta.counts[i]);
    return rest;
}

}  // namespace

stats::Homogeneity worker_homogeneity(const Counts& worker, const Counts& run) {
    return stats::homogeneity(worker.penta, rest_of(run, worker));
}

void Counts::subtract(const Counts& other) {
    pairs -= other.pairs;
    wins -= other.wins;
    draws -= other.draws;
    losses -= other.losses;
    for (size_t i = 0; i < penta.counts.size(); ++i) penta.counts[i] -= other.penta.counts[i];
}

std::vector<WorkerFit> Core::worker_fits(Storage& storage, const Run& run) const {
    std::vector<WorkerFit> fits = storage.worker_counts(run.id);
    std::map<int64_t, int64_t> time_losses_of;  // by worker
    std::map<int64_t, int64_t> faults_of;       // by worker
    for (const FaultCount& f : storage.fault_counts(run.id)) {
        faults_of[f.worker_id] += f.games;
        if (f.fault == GameEnding::TimeLoss) time_losses_of[f.worker_id] += f.games;
    }
    for (WorkerFit& w : fits) {
        w.run_id = run.id;
        w.cpu_class = class_name(w.cpu_class);
        w.time_losses = time_losses_of[w.worker_id];
        w.faults = faults_of[w.worker_id];
    }
    // Each worker against the rest of its own CPU class (class_stats.h): the test is symmetric,
    // so with two workers both look implausible and the one that disagrees with the majority of
    // its class's pairs is the suspect. Its time losses and faults count the same way: far more
    // of them than the rest of its class's rate (an overloaded machine, a broken installation)
    // make its games suspect; a faulty engine faults on every worker alike (the run's fault
    // bound pauses the run).
    fit_within_classes(fits, options_.quarantine_p);
    return fits;
}

std::optional<WorkerFit> Core::worker_fit(Storage& storage, const Run& run,
                                          int64_t worker_id) const {
    const RunFits::Key key(run.id, run.created_ms);
    const int64_t now = now_ms_();
    std::shared_ptr<const RunFits::Entry> kept = run_fits_->find(key, run.counts.pairs, now);
    if (!kept) {
        auto computed = std::make_shared<RunFits::Entry>();
        computed->pairs = run.counts.pairs;
        computed->computed_ms = now;
        for (WorkerFit& w : worker_fits(storage, run)) computed->fits[w.worker_id] = std::move(w);
        run_fits_->insert(key, computed);
        kept = std::move(computed);
    }
    const auto it = kept->fits.find(worker_id);
    if (it == kept->fits.end()) return std::nullopt;
    return it->second;
}

absl::StatusOr<Run> Core::purge_worker(Storage& storage, const Caller& caller, int64_t run_id,
                                       int64_t worker_id) const {
    RunDetails details;
    absl::StatusOr<Run> found = get_run(storage, run_id, &details);
    if (!found.ok()) return found.status();
    if (absl::Status allowed = check_owner(caller, *found); !allowed.ok()) return allowed;
    Run run = std::move(*found);
    const std::string name = "run " + std::to_string(run_id);
    const RunKindModule& kind = run_kind(run.spec.kind);
    if (!kind.purgeable())
        return absl::FailedPreconditionError(
            name + " is a " + std::string(kind.label()) +
            " run, whose reported pairs cannot be taken back; only regression and fixed-games "
            "runs can be purged");
    std::optional<Worker> worker = storage.find_worker(worker_id);
    if (!worker)
        return absl::NotFoundError("no worker " + std::to_string(worker_id) +
                                   " (see `sparring workers --all`)");
    for (const Purge& p : details.purges)
        if (p.worker_id == worker_id)
            return absl::AlreadyExistsError("worker " + std::to_string(worker_id) +
                                            " was already purged from " + name + " by '" +
                                            p.token_name + "'");
    const bool active = run.state == RunState::Active;
    if (!active && (details.chain_run_id != 0 || details.verifies_run_id != 0))
        return absl::FailedPreconditionError(
            name + " is over and its result was used by run " +
            std::to_string(details.chain_run_id ? details.chain_run_id : details.verifies_run_id) +
            "; purge a worker while the run is active");

    // The worker's lease on the run ends first, so no report of it is counted afterwards.
    if (active)
        for (Lease& lease : storage.leases_of_run(run.id))
            if (lease.worker_id == worker_id) end_lease(storage, run, lease, LeaseState::Stopped);

    Purge purge;
    purge.run_id = run.id;
    purge.worker_id = worker_id;
    purge.token_id = caller.token_id;
    purge.peer = caller.peer;
    purge.purged_ms = now_ms_();
    purge.counts = storage.worker_counts(run.id, worker_id);
    purge.id = storage.insert_purge(purge);
    const std::vector<uint64_t> pairs = storage.purge_worker_games(run.id, worker_id, purge.id);
    run.counts.subtract(purge.counts);
    refresh_statistics(run);

    std::optional<std::string> verdict = kind.verdict(run);
    if (!active && !verdict) {
        // The run ended on games that no longer count: it goes on with the purged pairs.
        run.state = RunState::Active;
        run.result.clear();
        run.finished_ms = 0;
    }
    if (run.state == RunState::Active) {
        for (size_t i = 0; i < pairs.size();) {
            size_t end = i + 1;
            while (end < pairs.size() && pairs[end] == pairs[end - 1] + 1) ++end;
            storage.insert_free_pairs(run.id, {pairs[i], end - i});
            run.free_pairs += end - i;
            i = end;
        }
    } else if (verdict) {
        run.result = *verdict;
    }
    storage.update_run(run);
    // Purges are rare: the token list is read for the purger's name.
    std::string purged_by;
    for (const Token& token : storage.list_tokens())
        if (token.id == caller.token_id) purged_by = token.name;
    publish(storage, WorkerPurged{run.id, worker_id, 2 * purge.counts.pairs, purged_by});
    // No worker reported (worker_id 0): the live page reads the purged run again.
    publish(storage, RunProgressed{run.id, run.counts, run.elo, run.sprt.llr, run.pairs_leased,
                                   run.active_leases, 0, Counts{}});
    if (active && verdict) {
        end_run(storage, run, RunState::Finished, std::move(*verdict));
    }
    return get_run(storage, run_id);
}

}  // namespace sparring::coordinator
