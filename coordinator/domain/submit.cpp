// Core: submitting a run: its spec checked against its versions and its kind, the limits of
// a user who is not an admin, and the run stored with its follow-up and its link to the run it
// was submitted like.
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"

namespace sparring::coordinator {

absl::StatusOr<Run> Core::submit_run(Storage& storage, RunSpec spec) const {
    if (spec.origin_run_id != 0) {
        if (!storage.find_run(spec.origin_run_id))
            return absl::NotFoundError("no run " + std::to_string(spec.origin_run_id) +
                                       " to submit like (see `sparring runs`)");
        // Without a book of its own it plays the openings of the run it was submitted like,
        // in its own order.
        if (spec.book.openings.empty()) {
            Book origin = storage.load_book(spec.origin_run_id);
            spec.book.openings = std::move(origin.openings);
            spec.book.source = std::move(origin.source);
        }
    }
    if (absl::Status status = check_run_spec(spec); !status.ok()) return status;
    if (spec.fault_bound)
        if (std::string why = fault_bound_problem(*spec.fault_bound); !why.empty())
            return absl::InvalidArgumentError(why);
    const std::optional<Version> test = storage.find_version(spec.test_version);
    if (!test)
        return absl::NotFoundError("unknown test version '" + excerpt(spec.test_version) +
                                   "' (add it with `sparring versions add`)");
    const std::optional<Version> base = storage.find_version(spec.base_version);
    if (!base)
        return absl::NotFoundError("unknown base version '" + excerpt(spec.base_version) +
                                   "' (add it with `sparring versions add`)");
    if (spec.threads > 1 && test->kind == Version::Kind::Builtin &&
        base->kind == Version::Kind::Builtin)
        return absl::InvalidArgumentError(
            "both versions are the built-in engine, which searches with one thread: threads "
            "apply to UCI and uploaded engines");
    // A clock is defined at the run's reference speed, else its test version's, else the
    // coordinator's (0: raw clocks).
    if (spec.reference_nps == 0 && spec.time_control.kind == TimeControl::Kind::Clock)
        spec.reference_nps = test->reference_nps ? test->reference_nps : options_.reference_nps;
    absl::StatusOr<RecordKindState> record = run_kind(spec.kind).prepare(storage, spec, *base);
    if (!record.ok()) return record.status();
    Run run;
    run.spec = std::move(spec);
    run.spec.sprt_stored = run_kind(run.spec.kind).keeps_sprt();
    run.test_id = test->id;
    run.base_id = base->id;
    run.book_size = run.spec.book.openings.size();
    run.created_ms = now_ms_();
    refresh_statistics(run);
    run.id = storage.insert_run(run);
    start_fault_count(storage, run);
    if (run.spec.follow_up) storage.insert_follow_up(run.id, *run.spec.follow_up);
    if (run.spec.origin_run_id != 0)
        storage.insert_run_link({run.spec.origin_run_id, run.id, RunLinkReason::SubmittedLike});
    publish(storage, RunSubmitted{run.id, run.spec.kind, run.spec.test_version,
                                  run.spec.base_version, run.spec.games, run.spec.owner});
    apply(storage, (*record)(storage, run));
    return get_run(storage, run.id);
}

absl::StatusOr<Run> Core::submit_run(Storage& storage, const Caller& caller, RunSpec spec) const {
    spec.owner = caller.user;
    if (caller.role != Role::Admin) {
        if (absl::Status status =
                check_priority(spec.priority, caller.role, options_.user_priorities);
            !status.ok())
            return status;
        const std::string user = "user '" + excerpt(caller.user) + "'";
        if (storage.count_active_runs_of_owner(caller.user) >= options_.max_active_runs_per_user)
            return absl::ResourceExhaustedError(
                user + " has " + std::to_string(options_.max_active_runs_per_user) +
                " active runs, the most the coordinator allows a user "
                "(--max-active-runs-per-user): stop one or wait for one to end");
        if (!submits_.admit(caller.user))
            return absl::ResourceExhaustedError(
                user + " submitted " + std::to_string(options_.max_submits_per_minute) +
                " runs in the last minute, the most the coordinator allows "
                "(--max-submits-per-minute): try again in a minute");
    }
    return submit_run(storage, std::move(spec));
}

}  // namespace sparring::coordinator
