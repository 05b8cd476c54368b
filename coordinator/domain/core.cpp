// Core, first half: tokens, versions, runs, statistics and the read-only queries.
#include "coordinator/domain/core.h"

#include <algorithm>
#include <map>

#include "common/printable.h"
#include "coordinator/domain/auth.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"

namespace sparring::coordinator {

namespace {

constexpr uint32_t kDefaultExportGames = 1000;
constexpr uint32_t kMaxExportGames = 10000;
constexpr size_t kMaxExportBytes = 2 << 20;  // well below gRPC's 4 MiB message limit

}  // namespace

void Counts::add(const Counts& other) {
    pairs += other.pairs;
    wins += other.wins;
    draws += other.draws;
    losses += other.losses;
    for (size_t i = 0; i < penta.counts.size(); ++i) penta.counts[i] += other.penta.counts[i];
}

void refresh_statistics(Run& run) {
    run.elo = stats::estimate(run.counts.penta);
    run_kind(run.spec.kind).refresh_statistics(run);
}

Core::Core(Options options, std::function<int64_t()> now_ms, EventBus* events)
    : options_(options),
      now_ms_(std::move(now_ms)),
      events_(events),
      books_(std::max<size_t>(1, options.max_cached_books), std::size_t(256) << 20),
      submits_(size_t(std::max(0, options.max_submits_per_minute)), std::chrono::minutes(1)),
      modifications_(size_t(std::max(0, options.max_modifications_per_minute)),
                     std::chrono::minutes(1)) {
    if (!options_.kinds.empty()) use_run_kinds(options_.kinds);
}

void Core::publish(Storage& storage, Event event) const {
    // At once, not after the commit: a later call of this transaction must see the change (a
    // touch of a run that is rolled back only reads it again).
    if (const auto* e = std::get_if<RunSubmitted>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<RunModified>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<RunFinished>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<LeaseGranted>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<WorkerPurged>(&event)) candidates_->touch(e->run_id);
    if (!events_) return;
    storage.after_commit([events = events_, event = std::move(event)] { events->publish(event); });
}

std::string Core::create_token(Storage& storage, Role role, const std::string& name) const {
    const std::string secret = generate_token(role);
    Token token;
    token.role = role;
    token.name = name;
    token.created_ms = now_ms_();
    storage.insert_token(token, sha256_hex(secret));
    return secret;
}

absl::StatusOr<Caller> Core::authenticate(Storage& storage, std::string_view token,
                                          std::optional<Role> role) const {
    if (absl::Status shape = check_token_shape(token); !shape.ok()) return shape;
    const std::optional<Token> found = storage.find_token(sha256_hex(token));
    if (!found) return absl::UnauthenticatedError("invalid or revoked token");
    if (role && !role_allows(found->role, *role))
        return absl::PermissionDeniedError("this call needs a " + std::string(role_name(*role)) +
                                           " token, not a " + std::string(role_name(found->role)) +
                                           " token");
    return Caller{found->id, found->role, found->name, {}};
}

absl::StatusOr<Version> Core::add_version(Storage& storage, Version version) const {
    if (absl::Status status = check_version(version); !status.ok()) return status;
    if (storage.find_version(version.name))
        return absl::AlreadyExistsError("version '" + version.name +
                                        "' already exists; versions never change, pick a new name");
    if (version.kind == Version::Kind::Uploaded) {
        const std::optional<EngineFile> file = storage.find_engine(version.engine_sha256);
        if (!file)
            return absl::FailedPreconditionError("no engine file " + version.engine_sha256 +
                                                 " on the coordinator: upload it first");
        if (file->archive && version.engine_entry.empty())
            return absl::InvalidArgumentError(
                "an engine archive needs --entry: the executable's path inside it");
        if (!file->archive && !version.engine_entry.empty())
            return absl::InvalidArgumentError("--entry applies to an archive, not a single file");
        version.engine_size = file->size;
        version.engine_archive = file->archive;
    }
    version.created_ms = now_ms_();
    version.id = storage.insert_version(version);
    publish(storage, VersionAdded{version.name, version.bench});
    return version;
}

absl::StatusOr<Version> Core::version_of_run(Storage& storage, int64_t run_id) const {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    return run_kind(run->spec.kind).made_version(storage, *run);
}

absl::StatusOr<Version> Core::get_version(Storage& storage, std::string_view name) const {
    if (absl::Status status = check_lookup_name(name); !status.ok()) return status;
    std::optional<Version> version = storage.find_version(name);
    if (!version)
        return absl::NotFoundError("no version '" + excerpt(name) +
                                   "' (see `sparring versions list`)");
    return *version;
}

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
        if (absl::Status status = check_priority(spec.priority, caller.role); !status.ok())
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

std::vector<Version> Core::list_versions(Storage& storage) const {
    return storage.list_versions();
}

absl::StatusOr<Run> Core::get_run(Storage& storage, int64_t run_id, RunDetails* details,
                                  uint32_t changes_offset) const {
    std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    run_kind(run->spec.kind).load(storage, *run);
    run->spec.follow_up = storage.find_follow_up(run_id);
    if (details) *details = run_details(storage, *run, changes_offset);
    return *run;
}

RunDetails Core::run_details(Storage& storage, const Run& run, uint32_t changes_offset) const {
    RunDetails details;
    details.bench_mismatches = storage.bench_mismatches_of_run(run.id);
    if (run.spec.reference_nps > 0) details.clocks = storage.worker_clocks_of_run(run.id);
    details.lease_failures = storage.lease_failures_of_run(run.id);
    for (const RunLink& link : storage.run_links(run.id)) {
        if (link.child != run.id) continue;
        if (link.reason == RunLinkReason::Verifies) details.verifies_run_id = link.parent;
        if (link.reason == RunLinkReason::ChainStep) details.chain_run_id = link.parent;
    }
    details.workers = worker_fits(storage, run);
    details.purges = storage.list_purges(run.id);
    details.faults = storage.fault_counts(run.id);
    details.changes =
        storage.latest_run_changes(run.id, changes_offset, kMaxShownChanges, &details.change_count);
    return details;
}

std::vector<Run> Core::list_runs(Storage& storage, const std::vector<RunState>& states,
                                 uint32_t limit) const {
    return storage.list_runs(states,
                             limit == 0 ? 100 : int(std::min<uint32_t>(limit, kMaxListedRuns)));
}

std::vector<Run> Core::find_runs(Storage& storage, RunQuery query, int64_t* total) const {
    query.limit = query.limit <= 0 ? 100 : std::min(query.limit, kMaxListedRuns);
    query.offset = std::max(query.offset, 0);
    std::vector<Run> runs = storage.find_runs(query, total);
    for (Run& run : runs)
        if (run.spec.description.size() > kMaxListedDescriptionBytes)
            run.spec.description =
                std::string(utf8_prefix(run.spec.description, kMaxListedDescriptionBytes - 3)) +
                "\u2026";
    return runs;
}

absl::StatusOr<Run> Core::stop_run(Storage& storage, int64_t run_id, std::string_view requested_by,
                                   std::string_view user) const {
    absl::StatusOr<Run> run = get_run(storage, run_id);
    if (!run.ok()) return run;
    if (run->state != RunState::Active)
        return absl::FailedPreconditionError(
            "run " + std::to_string(run_id) + " is already " +
            (run->state == RunState::Finished ? "finished" : "stopped"));
    publish(storage, RunStopRequested{run_id, std::string(requested_by), std::string(user)});
    end_run(storage, *run, RunState::Stopped, "stopped by user");
    return run;
}

void Core::end_run(Storage& storage, Run& run, RunState state, std::string result) const {
    run.state = state;
    run.result = std::move(result);
    run.finished_ms = now_ms_();
    for (Lease& batch : storage.leases_of_run(run.id)) {
        batch.state = LeaseState::Stopped;
        batch.ended_ms = run.finished_ms;
        storage.update_lease(batch);
        storage.set_worker_lease(batch.worker_id, 0, batch.id);
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
    return workers;
}

int64_t Core::count_active_workers(Storage& storage) const {
    return int64_t(storage.list_workers(now_ms_() - 3 * options_.heartbeat_interval_ms).size());
}

bool Core::is_active(int64_t last_seen_ms) const {
    return last_seen_ms >= now_ms_() - 3 * options_.heartbeat_interval_ms;
}

absl::StatusOr<GamesPage> Core::export_games(Storage& storage, int64_t run_id, uint64_t start_game,
                                             uint32_t max_games) const {
    if (!storage.find_run(run_id))
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    const uint32_t limit =
        max_games == 0 ? kDefaultExportGames : std::min(max_games, kMaxExportGames);
    GamesPage page;
    page.next_start_game = start_game;
    const std::vector<StoredGame> games =
        storage.list_games(run_id, start_game, int(limit), kMaxExportBytes);
    for (const StoredGame& game : games) {
        if (page.games > 0 && page.pgn.size() + game.pgn.size() > kMaxExportBytes) break;
        page.pgn += game.pgn;
        if (!game.pgn.empty() && game.pgn.back() != '\n') page.pgn += '\n';
        page.pgn += '\n';
        page.next_start_game = game.game + 1;
        ++page.games;
    }
    page.done = games.size() < limit && page.games == games.size();
    return page;
}

}  // namespace sparring::coordinator
