// What users do to a run after its submission: stop it and change it, when it is theirs.
#include <string>
#include <vector>

#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"

namespace sparring::coordinator {

namespace {

// Returns why a field named in a modification cannot change.
std::string why_fixed(const Run& run, const std::string& field) {
    const std::string name = "run " + std::to_string(run.id);
    const std::string again = "; submit a new run like it instead: sparring submit --like " +
                              std::to_string(run.id) + " with the new value";
    if (field == "test_version" || field == "base_version")
        return "the versions of " + name + " cannot change: its games so far were played by " +
               excerpt(run.spec.test_version) + " against " + excerpt(run.spec.base_version) +
               again;
    if (field == "time_control")
        return "the time control of " + name + " cannot change: its games so far were played at " +
               run.spec.time_control.to_string() + again;
    if (field == "book")
        return "the book of " + name + " cannot change: its games so far were played from " +
               (run.spec.book.source.empty() ? std::string("its openings")
                                             : excerpt(run.spec.book.source)) +
               again;
    return "'" + excerpt(field) + "' of " + name +
           " cannot change: only priority, throughput, games, description and the fault bound "
           "can";
}

// Returns why a value a modification gives is refused (a priority out of the caller's range,
// games a run cannot end at, ...), or OK.
absl::Status check_new_values(const Run& run, const RunKindModule& kind,
                              const RunModification& change, Role role,
                              const PriorityRange& user_priorities) {
    const std::string name = "run " + std::to_string(run.id);
    if (change.priority)
        if (absl::Status status = check_priority(*change.priority, role, user_priorities);
            !status.ok())
            return status;
    if (change.throughput)
        if (absl::Status status = check_throughput(*change.throughput); !status.ok()) return status;
    if (change.games) {
        if (!kind.games_changeable())
            return absl::FailedPreconditionError("the games of " + name + " cannot change: a " +
                                                 std::string(kind.label()) +
                                                 " run's games set more than when it ends");
        if (absl::Status status = check_games(*change.games); !status.ok()) return status;
        // Pairs below next_pair are played, out on leases or about to be played again: the run
        // cannot end before them.
        const uint64_t handed_out = 2 * run.next_pair;
        if (*change.games < handed_out)
            return absl::FailedPreconditionError(
                name + " has " + std::to_string(handed_out) +
                " games played or out on leases: its games can go down to " +
                std::to_string(handed_out) + ", not to " + std::to_string(*change.games));
    }
    if (change.description)
        if (absl::Status status = check_description(*change.description); !status.ok())
            return status;
    if (change.fault_bound)
        if (std::string why = fault_bound_problem(*change.fault_bound); !why.empty())
            return absl::InvalidArgumentError(why);
    return absl::OkStatus();
}

// Sets the run's settings a modification gives and returns the changes, the values that differ
// from the run's (each with who made it and when).
std::vector<RunChange> change_settings(Run& run, const RunModification& change,
                                       const std::string& user, int64_t now) {
    std::vector<RunChange> changes;
    const auto record = [&](const char* field, std::string old_value, std::string new_value) {
        if (old_value != new_value)
            changes.push_back(
                {run.id, now, user, field, std::move(old_value), std::move(new_value)});
    };
    if (change.priority) {
        record("priority", std::to_string(run.spec.priority), std::to_string(*change.priority));
        run.spec.priority = *change.priority;
    }
    if (change.throughput) {
        record("throughput", std::to_string(run.spec.throughput),
               std::to_string(*change.throughput));
        run.spec.throughput = *change.throughput;
    }
    if (change.games) {
        record("games", std::to_string(run.spec.games), std::to_string(*change.games));
        run.spec.games = *change.games;
    }
    if (change.description) {
        record("description", run.spec.description, *change.description);
        run.spec.description = *change.description;
    }
    return changes;
}

}  // namespace

absl::StatusOr<Run> Core::stop_run(Storage& storage, int64_t run_id, std::string_view requested_by,
                                   std::string_view user) const {
    absl::StatusOr<Run> run = get_run(storage, run_id);
    if (!run.ok()) return run;
    if (run->state != RunState::Active && run->state != RunState::Paused)
        return absl::FailedPreconditionError(
            "run " + std::to_string(run_id) + " is already " +
            (run->state == RunState::Finished ? "finished" : "stopped"));
    publish(storage, RunStopRequested{run_id, std::string(requested_by), std::string(user)});
    end_run(storage, *run, RunState::Stopped, "stopped by user");
    return run;
}

absl::Status Core::check_owner(const Caller& caller, const Run& run) const {
    if (caller.role == Role::Admin) return absl::OkStatus();
    if (caller.role == Role::User && !run.spec.owner.empty() && run.spec.owner == caller.user)
        return absl::OkStatus();
    const std::string name = "run " + std::to_string(run.id);
    if (run.spec.owner.empty())
        return absl::PermissionDeniedError(
            name +
            " has no owner (it was submitted before owners were recorded): only an admin "
            "may stop or change it");
    return absl::PermissionDeniedError(name + " belongs to '" + excerpt(run.spec.owner) +
                                       "': only its owner or an admin may stop or change it");
}

absl::StatusOr<Run> Core::stop_run(Storage& storage, const Caller& caller, int64_t run_id) const {
    std::optional<Run> found = storage.find_run(run_id);
    if (!found)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    if (absl::Status allowed = check_owner(caller, *found); !allowed.ok()) return allowed;
    absl::StatusOr<Run> stopped = stop_run(storage, run_id, caller.peer, caller.user);
    if (!stopped.ok()) return stopped;
    storage.insert_run_change({run_id, now_ms_(), caller.user, "state",
                               std::string(run_state_name(found->state)), "stopped"});
    return get_run(storage, run_id);
}

absl::StatusOr<Run> Core::modify_run(Storage& storage, const Caller& caller,
                                     const RunModification& change) const {
    std::optional<Run> found = storage.find_run(change.run_id);
    if (!found)
        return absl::NotFoundError("no run " + std::to_string(change.run_id) +
                                   " (see `sparring runs`)");
    Run run = std::move(*found);
    if (absl::Status allowed = check_owner(caller, run); !allowed.ok()) return allowed;
    const std::string name = "run " + std::to_string(run.id);
    if (!change.fixed.empty()) return absl::InvalidArgumentError(why_fixed(run, change.fixed[0]));
    if (!change.priority && !change.throughput && !change.games && !change.description &&
        !change.fault_bound)
        return absl::InvalidArgumentError(
            "nothing to change: give a priority, throughput, games, description or fault bound");
    const bool active = run.state == RunState::Active;
    // A paused run is still to be played: its settings change as an active run's.
    const bool live = active || run.state == RunState::Paused;
    if (!live && (change.priority || change.throughput || change.games || change.fault_bound))
        return absl::FailedPreconditionError(
            name + " is " + std::string(run_state_name(run.state)) +
            ": only its description can change (priority, throughput, games and the fault bound "
            "apply to an active or paused run)");
    const RunKindModule& kind = run_kind(run.spec.kind);
    // Counted once the call is one that may change something: a refusal changes nothing.
    if (caller.role != Role::Admin && !modifications_.admit(caller.user))
        return absl::ResourceExhaustedError(
            "user '" + excerpt(caller.user) + "' changed runs " +
            std::to_string(options_.max_modifications_per_minute) +
            " times in the last minute, the most the coordinator allows "
            "(--max-modifications-per-minute): try again in a minute");
    if (absl::Status status =
            check_new_values(run, kind, change, caller.role, options_.user_priorities);
        !status.ok())
        return status;
    std::vector<RunChange> changes = change_settings(run, change, caller.user, now_ms_());
    if (change.fault_bound) {
        // Kept with the run's count: the faults counted so far are held to the new bound.
        RunFaults count = storage.find_run_faults(run.id).value_or(
            RunFaults{run.id, options_.fault_bound, 0, 2 * run.counts.pairs, {}});
        if (count.bound != *change.fault_bound) {
            changes.push_back({run.id, now_ms_(), caller.user, "fault_bound",
                               fault_bound_text(count.bound),
                               fault_bound_text(*change.fault_bound)});
            count.bound = *change.fault_bound;
            storage.put_run_faults(count);
        }
    }
    if (changes.empty()) return get_run(storage, run.id);
    storage.update_run_settings(run);
    for (const RunChange& c : changes) storage.insert_run_change(c);
    publish(storage, RunModified{run.id, caller.user, changes, caller.peer});
    // Fewer games may be all the run has counted: it ends now, as after its last report.
    if (active && change.games)
        if (std::optional<std::string> verdict = kind.verdict(run)) {
            end_run(storage, run, RunState::Finished, std::move(*verdict));
        }
    return get_run(storage, run.id);
}

}  // namespace sparring::coordinator
