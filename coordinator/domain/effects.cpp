// Core: a run's end, and carrying out what the kinds decide (KindEffects): at a run's
// submission, at its end, and at the end of a run it started.
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

void Core::end_run(Storage& storage, Run& run, RunState state, std::string result) const {
    run.state = state;
    run.result = std::move(result);
    run.finished_ms = now_ms_();
    for (Lease& lease : storage.leases_of_run(run.id)) {
        lease.state = LeaseState::Stopped;
        lease.ended_ms = run.finished_ms;
        storage.update_lease(lease);
        storage.set_worker_lease(lease.worker_id, 0, lease.id);
    }
    storage.delete_free_pairs(run.id);
    run.free_pairs = 0;
    run.pairs_leased = 0;
    run.active_leases = 0;
    run.active_cores = 0;
    storage.update_run(run);
    publish(storage, RunFinished{run.id, run.spec.kind, run.state, run.result, run.counts, run.elo,
                                 run.sprt.llr});
    const RunKindModule& kind = run_kind(run.spec.kind);
    if (state == RunState::Stopped) apply(storage, kind.on_stopped(storage, run));
    enqueue_notifications(storage, run);
    // The run that started this one hears of its end (a chain starts its next step).
    for (const RunLink& link : storage.run_links(run.id))
        if (link.child == run.id && link.reason != RunLinkReason::SubmittedLike)
            if (const std::optional<Run> parent = storage.find_run(link.parent))
                apply(storage, run_kind(parent->spec.kind).on_child_ended(storage, link.parent));
    if (state == RunState::Finished) apply(storage, kind.on_finished(storage, run));
}

void Core::apply(Storage& storage, KindEffects effects) const {
    std::string version;
    int64_t started = 0;
    absl::Status status;
    if (effects.add_version) {
        // The name asked for, or the first of NAME.2, NAME.3, ... not yet taken.
        Version v = std::move(*effects.add_version);
        const std::string name = v.name;
        for (int n = 2; storage.find_version(v.name); ++n) v.name = name + "." + std::to_string(n);
        absl::StatusOr<Version> added = add_version(storage, std::move(v));
        if (added.ok())
            version = added->name;
        else
            status = added.status();
    }
    if (status.ok() && effects.start_run) {
        if (!version.empty()) effects.start_run->test_version = version;
        absl::StatusOr<Run> run = submit_run(storage, std::move(*effects.start_run));
        if (run.ok())
            started = run->id;
        else
            status = run.status();
    }
    if (started && effects.start_link.parent)
        storage.insert_run_link({effects.start_link.parent, started, effects.start_link.reason});
    if (status.ok() && effects.record && (!version.empty() || started))
        effects.record(storage, version, started);
    if (!status.ok())
        if (std::optional<Run> run = storage.find_run(effects.failure.run_id)) {
            const std::string why = effects.failure.prefix + ": " + std::string(status.message());
            if (!effects.failure.stops) {
                run->result += "; " + why;
                storage.update_run(*run);
            } else if (run->state == RunState::Active) {
                end_run(storage, *run, RunState::Stopped, why);
            }
        }
    for (const KindEffects::End& end : effects.end_runs)
        if (std::optional<Run> run = storage.find_run(end.run_id);
            run && run->state == RunState::Active)
            end_run(storage, *run, end.state, end.result);
}

}  // namespace sparring::coordinator
