// Core: fault storms pause a run. Each report's faulty games (time losses, crashes, stalls,
// illegal moves) are counted against the run's fault bound in the transaction that counts the
// report; past it the run is paused, its leases stop, and its owner hears of it. The owner or
// an admin resumes it (sparring resume), with the bound raised or after a fix.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/json_text.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/notifications.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

// Returns a fault as a sentence names it: "illegal move", "time loss".
std::string fault_words(GameEnding fault) {
    std::string words(game_ending_name(fault));
    std::replace(words.begin(), words.end(), '_', ' ');
    return words;
}

// Returns what runs a version's games: its UCI command, its uploaded file, or the built-in
// engine.
std::string engine_of(const Version& version) {
    switch (version.kind) {
        case Version::Kind::Uci:
            return version.uci_command;
        case Version::Kind::Uploaded:
            return "uploaded " +
                   (version.engine_entry.empty() ? std::string("file")
                                                 : "archive entry " + version.engine_entry) +
                   " " + version.engine_sha256.substr(0, 12);
        case Version::Kind::Builtin:
            break;
    }
    return "built-in";
}

// Returns the pause of a run whose `faults` of `games` counted passed its bound: its most
// frequent version and fault, with an example game.
FaultPause pause_of(Storage& storage, const Run& run, const RunFaults& count, int64_t now) {
    FaultPause pause;
    pause.faulty_games = count.faults;
    pause.games = 2 * run.counts.pairs - count.from_games;
    pause.paused_ms = now;
    // By version and fault: a run of one version against itself (a tuning run) counts both
    // sides' games as that version's.
    std::map<std::pair<int64_t, GameEnding>, FaultTally> by_version;
    for (const FaultTally& t : storage.fault_tallies(run.id)) {
        const int64_t version_id = t.test_version ? run.test_id : run.base_id;
        auto [it, added] = by_version.try_emplace({version_id, t.fault}, t);
        if (!added) {
            it->second.games += t.games;
            it->second.example_game = std::min(it->second.example_game, t.example_game);
        }
    }
    const FaultTally* top = nullptr;
    int64_t top_version = 0;
    for (const auto& [key, tally] : by_version)
        if (!top || tally.games > top->games ||
            (tally.games == top->games && tally.example_game < top->example_game)) {
            top = &tally;
            top_version = key.first;
        }
    if (top) {
        const Version version = *storage.find_version(top_version);
        pause.version = version.name;
        pause.engine = engine_of(version);
        pause.fault = top->fault;
        pause.fault_games = top->games;
        pause.example_game = top->example_game;
    }
    // In tenths of a percent, rounded: "90.5%" past a bound of 90%.
    const int64_t tenths =
        pause.games > 0 ? (1000 * pause.faulty_games + pause.games / 2) / pause.games : 0;
    pause.reason = "version '" + pause.version + "' (" + pause.engine + ") lost " +
                   std::to_string(pause.fault_games) + " games by " + fault_words(pause.fault) +
                   "; " + std::to_string(pause.faulty_games) + " of " +
                   std::to_string(pause.games) + " games faulty (" + std::to_string(tenths / 10) +
                   "." + std::to_string(tenths % 10) + "%), past the bound " +
                   fault_bound_text(count.bound) + "; e.g. game " +
                   std::to_string(pause.example_game);
    return pause;
}

// Returns the webhook's notice of a pause: the run's end notice's fields, and the pause's.
std::string pause_notice(const Run& run, const FaultPause& pause) {
    nlohmann::json notice = nlohmann::json::parse(run_end_notice(run));
    notice["event"] = "run_paused";
    notice["pause"] = {
        {"version", pause.version},
        {"engine", pause.engine},
        {"fault", std::string(game_ending_name(pause.fault))},
        {"fault_games", pause.fault_games},
        {"faulty_games", pause.faulty_games},
        {"games", pause.games},
        {"example_game", pause.example_game},
        {"paused_unix_ms", pause.paused_ms},
        {"reason", pause.reason},
    };
    return json_text(notice);
}

}  // namespace

void Core::start_fault_count(Storage& storage, const Run& run) const {
    storage.put_run_faults(
        RunFaults{run.id, run.spec.fault_bound.value_or(options_.fault_bound), 0, 0, {}});
}

bool Core::count_faults(Storage& storage, Run& run, const Report& report) const {
    int64_t faulty = 0;
    for (const PairRecord& pair : report.pairs)
        for (const GameRecord& game : pair.games) faulty += is_fault(game.ending);
    std::optional<RunFaults> count = storage.find_run_faults(run.id);
    bool changed = faulty > 0;
    if (!count) {
        // A run stored before bounds existed counts from this report on.
        count = RunFaults{run.id,
                          options_.fault_bound,
                          0,
                          2 * (run.counts.pairs - int64_t(report.pairs.size())),
                          {}};
        changed = true;
    }
    count->faults += faulty;
    const bool pause =
        run.state == RunState::Active &&
        passes_fault_bound(count->bound, count->faults, 2 * run.counts.pairs - count->from_games);
    if (pause) count->pause = pause_of(storage, run, *count, now_ms_());
    if (changed || pause) storage.put_run_faults(*count);
    if (!pause) return false;

    // Its leases stop (the workers hear it at their next heartbeat or report) and their
    // unreported pairs go back to its pool, for when it resumes.
    for (Lease& lease : storage.leases_of_run(run.id))
        if (lease.state == LeaseState::Leased) end_lease(storage, run, lease, LeaseState::Stopped);
    run.state = RunState::Paused;
    run.result = "paused: " + count->pause->reason;
    storage.update_run(run);
    candidates_->touch(run.id);
    publish(storage, RunPaused{run.id, *count->pause});
    enqueue_notifications(storage, run, pause_notice(run, *count->pause));
    return true;
}

absl::StatusOr<Run> Core::resume_run(Storage& storage, const Caller& caller, int64_t run_id,
                                     std::optional<FaultBound> bound) const {
    std::optional<Run> found = storage.find_run(run_id);
    if (!found)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    Run run = std::move(*found);
    if (absl::Status allowed = check_owner(caller, run); !allowed.ok()) return allowed;
    const std::string name = "run " + std::to_string(run.id);
    if (bound)
        if (std::string why = fault_bound_problem(*bound); !why.empty())
            return absl::InvalidArgumentError(why);
    if (run.state != RunState::Paused)
        return absl::FailedPreconditionError(name + " is " +
                                             std::string(run_state_name(run.state)) +
                                             ": only a run paused for faults resumes");
    RunFaults count =
        storage.find_run_faults(run.id).value_or(RunFaults{run.id, options_.fault_bound, 0, 0, {}});
    const int64_t now = now_ms_();
    std::vector<RunChange> changes = {{run.id, now, caller.user, "state", "paused", "active"}};
    if (bound && *bound != count.bound)
        changes.push_back({run.id, now, caller.user, "fault_bound", fault_bound_text(count.bound),
                           fault_bound_text(*bound)});
    if (bound) count.bound = *bound;
    // Counted afresh: the faults that paused it were seen, and fixed or allowed for.
    count.faults = 0;
    count.from_games = 2 * run.counts.pairs;
    count.pause.reset();
    storage.put_run_faults(count);
    run.state = RunState::Active;
    run.result.clear();
    storage.update_run(run);
    candidates_->touch(run.id);
    for (const RunChange& c : changes) storage.insert_run_change(c);
    publish(storage, RunResumed{run.id, caller.user, caller.peer});
    publish(storage, RunModified{run.id, caller.user, changes, caller.peer});
    // Paused by its last report: it ends now, as it would have then.
    if (std::optional<std::string> verdict = run_kind(run.spec.kind).verdict(run))
        end_run(storage, run, RunState::Finished, std::move(*verdict));
    return get_run(storage, run.id);
}

}  // namespace sparring::coordinator
