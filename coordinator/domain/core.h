// The coordinator's domain logic: versions, runs, worker registration, leases, exactly-once
// report accounting and run statistics. Knows nothing of gRPC; every operation works on a
// Storage inside a transaction its caller opened and commits.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/run_limits.h"
#include "coordinator/domain/active_workers.h"
#include "coordinator/domain/book_cache.h"
#include "coordinator/domain/rate_limit.h"
#include "coordinator/domain/run_fits.h"
#include "coordinator/domain/run_versions.h"
#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/storage.h"
#include "coordinator/domain/waiting.h"

namespace sparring::coordinator {

class EventBus;
struct Event;
struct KindEffects;
class RunKindModule;

// A lease granted to a worker, with everything needed to play it.
struct LeaseGrant {
    Lease lease;
    Run run;
    Version test;
    Version base;
    // openings[i] is pair lease.first_pair + i; generation runs: game 2 * lease.first_pair + i
    std::vector<Opening> openings;
    std::vector<std::string> tune_names;    // tuning runs: the parameters
    std::vector<spsa::Step> tune_steps;     // tuning runs: tune_steps[i] is played by pair i
    std::optional<GenerateState> generate;  // generation runs
    double min_clock_factor = 0;            // scaled clocks: the bounds of a worker's factor
    double max_clock_factor = 0;
};

struct ReportAck {
    bool duplicate = false;
    bool stop = false;  // the lease is over: the worker must stop playing it
    int64_t expires_ms = 0;
};

struct HeartbeatAck {
    std::vector<int64_t> stop_leases;
    int64_t expires_ms = 0;
};

// A worker handing a lease back.
struct Release {
    enum class Reason { Shutdown, BenchMismatch, EngineFailure, TooSlow, CpuUnsupported };

    int64_t worker_id = 0;
    int64_t lease_id = 0;
    Reason reason = Reason::Shutdown;
    int64_t version_id = 0;       // BenchMismatch: the refused version
    uint64_t computed_bench = 0;  // BenchMismatch: what the worker computed
    std::string message;
    uint64_t measured_nps = 0;  // TooSlow: the worker's speed with the test version
    std::string build_level;    // CpuUnsupported: build_level_name of version_id's build
};

struct GamesPage {
    std::string pgn;
    uint32_t games = 0;
    uint64_t next_start_game = 0;
    bool done = false;
};

// A chunk of labelled positions imported from files (see ImportPositionsRequest).
struct ImportChunk {
    int64_t run_id = 0;  // 0: the first chunk, which makes the run
    std::string version;
    std::string source;
    uint32_t chunk = 0;
    std::string data;  // count records (training/position_record.h), already checked
    uint32_t count = 0;
    bool done = false;
    std::string key;    // first chunk: identifies the import, so that a rerun continues it
    std::string owner;  // first chunk: the user who imports (owns the run it makes)
};

// What a user asks to change of a run after its submission (see ModifyRunRequest).
struct RunModification {
    int64_t run_id = 0;
    std::optional<int> priority;
    std::optional<int> throughput;
    std::optional<uint64_t> games;
    std::optional<std::string> description;
    std::optional<FaultBound> fault_bound;  // an active or paused run's
    // What cannot change, because the games played so far would no longer count together with
    // those to come, named in the request only to be refused: "test_version", "base_version",
    // "time_control", "book".
    std::vector<std::string> fixed;
};

struct ImportAck {
    int64_t run_id = 0;
    uint64_t positions = 0;
    bool duplicate = false;
    uint32_t next_chunk = 0;  // chunks the run holds
};

struct ForecastInput;  // coordinator/domain/forecast.h

class Core {
  public:
    struct Options {
        int64_t lease_ms = 60'000;           // a lease lives this long past its last sign
        int heartbeat_interval_ms = 10'000;  // asked of workers holding a lease
        int pairs_per_thread = 4;            // default lease size per worker thread
        uint32_t max_pairs_per_lease = 1024;
        int retry_after_ms = 5'000;         // asked of workers when there is no work
        size_t max_pgn_bytes = 256 * 1024;  // per game
        // A worker whose pairs in a run fit the rest of it with p below this is leased no
        // more of the run (stats/homogeneity.h); 0 turns quarantine off.
        double quarantine_p = 0;
        int max_workers_per_token = 1000;  // workers of one token seen lately, at most
        int max_leases_per_token = 1000;   // leases the workers of one token hold, at most
        // What one user (not an admin) may do: active runs at once, and runs submitted and
        // ModifyRun calls in any minute. Past them: RESOURCE_EXHAUSTED, changing nothing.
        int max_active_runs_per_user = 100;
        int max_submits_per_minute = 60;
        int max_modifications_per_minute = 60;
        // The priorities a user (not an admin) may give a run at submission and by modify
        // (--user-priority-min/--user-priority-max); an admin any in the bound of every run.
        PriorityRange user_priorities;
        // A lease without a report for this long expires, however many heartbeats it gets.
        int64_t max_lease_silence_ms = 3'600'000;
        int lease_failures_per_worker = 3;  // a worker that failed a run this often backs off
        int lease_failure_workers = 3;      // a run failed by this many workers stops
        size_t max_cached_books = 64;       // runs whose ordered openings stay in memory
        // Each run's end is told (Notification) to this URL, and to its owner's (sparring
        // notify), which an entry of notify_hosts must let through ("HOST:PORT[/PATH]",
        // domain/notifications.h).
        std::string notify_url;
        std::vector<std::string> notify_hosts;
        // Scaled clocks: the speed a clock run is defined for when neither the run nor its
        // test version states one (0: raw clocks); the factors a worker may play with; and
        // how long a worker's measured speed keeps it from runs it is too slow (or fast) for.
        uint64_t reference_nps = 0;
        double min_clock_factor = 0.25;
        double max_clock_factor = 4.0;
        int64_t speed_max_age_ms = 3'600'000;
        // The fault bound of a run submitted without one (--fault-bound): more faulty games
        // than this pause it.
        FaultBound fault_bound;
        // The table of run kinds (run_kind.h), built by the composition root
        // (kinds/registry.h); the constructor makes it the one the look-ups use.
        std::vector<const RunKindModule*> kinds;
    };

    // Publishes domain events to `events`, when given (see events.h).
    Core(Options options, std::function<int64_t()> now_ms, EventBus* events = nullptr);

    const Options& options() const { return options_; }

    // Creates a token and returns its secret, which is shown once and stored only hashed.
    std::string create_token(Storage& storage, Role role, const std::string& name) const;
    // Returns the holder of a bearer token; role, when given, is the role the call needs.
    absl::StatusOr<Caller> authenticate(Storage& storage, std::string_view token,
                                        std::optional<Role> role) const;

    // Validates and records a version; resolves a built-in version's parameter set.
    absl::StatusOr<Version> add_version(Storage& storage, Version version) const;
    // Returns the unnamed version a run's result makes (a tuning or training run's), on top of
    // the run's base version (`versions add --from-run`).
    absl::StatusOr<Version> version_of_run(Storage& storage, int64_t run_id) const;
    absl::StatusOr<Version> get_version(Storage& storage, std::string_view name) const;
    std::vector<Version> list_versions(Storage& storage) const;

    // Validates and starts a run.
    absl::StatusOr<Run> submit_run(Storage& storage, RunSpec spec) const;
    // Validates and starts a run a user (or an admin) submitted, owned by them: a user within
    // their priority range, active runs and submissions per minute (RESOURCE_EXHAUSTED past
    // them, changing nothing).
    absl::StatusOr<Run> submit_run(Storage& storage, const Caller& caller, RunSpec spec) const;
    // Returns what a run's forecast is made of (coordinator/domain/forecast.h): an active
    // regression, fixed-games or tuning run's totals with its throughput over its latest
    // reports; nothing for another run.
    std::optional<ForecastInput> forecast(Storage& storage, const Run& run) const;
    // Returns a run with its kind's state and follow-up, and fills *details, when given, with
    // what is shown of it alone (run_details).
    absl::StatusOr<Run> get_run(Storage& storage, int64_t run_id, RunDetails* details = nullptr,
                                uint32_t changes_offset = 0) const;
    // Returns what is shown of a run alone: its bench mismatches, clocks, lease failures, the
    // run that started it, workers, purges, faults, and the latest kMaxShownChanges of its
    // changes before the newest changes_offset.
    RunDetails run_details(Storage& storage, const Run& run, uint32_t changes_offset = 0) const;
    // Returns runs in the given states (all when empty), newest first; limit 0 means 100, and
    // at most kMaxListedRuns are returned.
    std::vector<Run> list_runs(Storage& storage, const std::vector<RunState>& states,
                               uint32_t limit) const;
    // Returns the page of runs a query selects and sets *total to how many it selects in
    // all; a limit of 0 means 100, and at most kMaxListedRuns are returned, their descriptions
    // cut to kMaxListedDescriptionBytes (an ellipsis ends a cut one).
    std::vector<Run> find_runs(Storage& storage, RunQuery query, int64_t* total) const;
    // Stops an active run and ends its leases; requested_by (a peer address) and user say who
    // asked (for the events). No permission check: see the overload with a caller.
    absl::StatusOr<Run> stop_run(Storage& storage, int64_t run_id,
                                 std::string_view requested_by = {},
                                 std::string_view user = {}) const;
    // Returns PERMISSION_DENIED unless the caller may stop or change the run: its owner, or an
    // admin (a run without an owner, stored before owners were recorded: an admin only).
    absl::Status check_owner(const Caller& caller, const Run& run) const;
    // Stops an active run for its owner or an admin, and records who stopped it.
    absl::StatusOr<Run> stop_run(Storage& storage, const Caller& caller, int64_t run_id) const;
    // Sets (url given; empty clears) and returns the caller's notification URL, whose host
    // must be on the operator's list; PERMISSION_DENIED names the hosts allowed.
    absl::StatusOr<std::string> set_notify_url(Outbox& outbox, const Caller& caller,
                                               std::optional<std::string> url) const;
    // Changes what may change of a run after its submission, for its owner or an admin:
    // priority, throughput and games of an active run, the description of any. Records each
    // change with who and when; a run whose games drop to those it has counted ends.
    absl::StatusOr<Run> modify_run(Storage& storage, const Caller& caller,
                                   const RunModification& change) const;
    // Makes a run paused for faults active again for its owner or an admin, with a new fault
    // bound when given; its faulty games are counted afresh. Records the change; a run whose
    // pairs were all played ends as after its last report.
    absl::StatusOr<Run> resume_run(Storage& storage, const Caller& caller, int64_t run_id,
                                   std::optional<FaultBound> bound) const;
    // Ends a run: records why and stops its leases; a chain's children stop with it, and
    // the chain a run belongs to moves on.
    void end_run(Storage& storage, Run& run, RunState state, std::string result) const;
    // Applies what a run kind decided (kinds return effects; the core carries them out), in
    // the caller's transaction: a tuning run's values and trajectory point, a version added
    // under a free name, a run submitted, their record in the kind's state, the runs ended.
    void apply(Storage& storage, KindEffects effects) const;

    // Records a new worker process of the caller's token.
    absl::StatusOr<Worker> register_worker(Storage& storage, const Caller& caller,
                                           Worker worker) const;
    // Leases pairs of the run the scheduler picks (none of avoid_runs, which the worker backs
    // off from), re-sends the worker's current lease, or returns nullopt when there is
    // nothing the worker can play.
    absl::StatusOr<std::optional<LeaseGrant>> request_work(
        Storage& storage, const Caller& caller, int64_t worker_id,
        const std::vector<int64_t>& avoid_runs = {});
    // Counts a report exactly once; a retry of a recorded report is acknowledged unchanged.
    absl::StatusOr<ReportAck> report_results(Storage& storage, const Caller& caller,
                                             const Report& report) const;
    // Extends the worker's live leases and names those it must stop.
    absl::StatusOr<HeartbeatAck> heartbeat(Storage& storage, const Caller& caller,
                                           int64_t worker_id,
                                           const std::vector<int64_t>& lease_ids) const;
    // Ends a lease early (lease id 0: the one the worker holds), returning its unreported
    // pairs; returns how many.
    absl::StatusOr<uint32_t> release_lease(Storage& storage, const Caller& caller,
                                           const Release& release) const;
    // Expires the leases past their time, returning their unreported pairs; returns how many.
    int expire_leases(Storage& storage) const;
    // Gives every lease a full lease time from now, so a restart expires none at once.
    void resume_leases(Storage& storage) const;

    // Removes a worker's games from a run's totals (they are kept in purged_games), records
    // who did it, bars the worker from the run, recomputes the statistics and verdict, and
    // returns the pairs to the pool of an active run (or reopens a finished one its verdict
    // no longer holds for) so that other workers play them again.
    absl::StatusOr<Run> purge_worker(Storage& storage, const Caller& caller, int64_t run_id,
                                     int64_t worker_id) const;
    // Returns each worker's fit in a run, against the rest of its CPU class's counted pairs
    // (class_stats.h), read in one query.
    std::vector<WorkerFit> worker_fits(Storage& storage, const Run& run) const;
    // Returns the fit of one worker's pairs in a run; nullopt when it has none counted.
    std::optional<WorkerFit> worker_fit(Storage& storage, const Run& run, int64_t worker_id) const;

    // Returns the workers seen lately (or all), with their runs and games.
    std::vector<WorkerSummary> list_workers(Storage& storage, bool include_inactive) const;
    // Returns the number of workers seen within three heartbeats, without their fits.
    int64_t count_active_workers(Storage& storage) const;
    // Returns whether a worker last seen at that time counts as active.
    bool is_active(int64_t last_seen_ms) const;
    // Reads what tells why runs wait (waiting.h): the connected workers, and the active runs
    // with pairs left to lease (all of them, or those of `runs` when given). O(workers) reads:
    // for the reads of runs and workers, never a worker's call for work.
    WaitingBoard waiting_board(Storage& storage, const std::vector<Run>* runs = nullptr) const;
    // Stores a chunk of imported positions in a generation run without games (made by the
    // first chunk, finished by the last); a retried chunk stores nothing twice, and a first
    // chunk whose key an active import run holds continues that run.
    absl::StatusOr<ImportAck> import_positions(Storage& storage, const ImportChunk& chunk) const;
    // Returns a page of a run's games as PGN.
    absl::StatusOr<GamesPage> export_games(Storage& storage, int64_t run_id, uint64_t start_game,
                                           uint32_t max_games) const;
    // Publishes an event once the storage's current transaction has committed.
    void publish(Storage& storage, Event event) const;

  private:
    // Puts the notifications of a run's end in the outbox, in the transaction that ends it
    // (body: another notice than the end's, such as a pause's).
    void enqueue_notifications(Outbox& outbox, const Run& run, std::string body = {}) const;
    // Counts a report's faulty games against the run's fault bound (the run's counts already
    // hold the report's) and pauses the run when they pass it: its leases stop, their pairs
    // go back to its pool. Returns whether it paused.
    bool count_faults(Storage& storage, Run& run, const Report& report) const;
    // Starts a new run's count against its bound (the coordinator's when it has none).
    void start_fault_count(Storage& storage, const Run& run) const;
    // Returns the worker if it exists and was registered with the caller's token.
    absl::StatusOr<Worker> holder(Storage& storage, const Caller& caller, int64_t worker_id) const;
    // Fills active_ from storage once: the workers seen within the active window.
    void seed_active_workers(Storage& storage) const;
    // Returns a run's two versions, read from storage the first time only.
    std::shared_ptr<const RunVersions::Pair> versions_of(Storage& storage, const Run& run) const;
    // Returns a lease if it exists and the worker holds it.
    absl::StatusOr<Lease> held_lease(Storage& storage, int64_t worker_id, int64_t lease_id) const;
    // Ends an active lease in a final state, returning unreported pairs to an active run.
    void end_lease(Storage& storage, Run& run, Lease& lease, LeaseState state) const;
    // Returns the run's openings in play order (cached; a run's book never changes).
    std::shared_ptr<const std::vector<Opening>> openings(Storage& storage, const Run& run);
    // Returns when a lease expires if renewed now: a lease time from now, but no later than
    // max_lease_silence_ms after its last report (or its start).
    // Returns whether a worker may play a scaled clock with this factor.
    bool factor_allowed(double factor) const;
    // Checks a report's clock factor against its run: present, from its speed, within bounds
    // for a run with scaled clocks; absent otherwise.
    absl::Status check_clock(const Run& run, const Report& report, const std::string& name) const;
    int64_t renewed_expiry(Storage& storage, const Lease& lease, int64_t now) const;
    // Records an engine failure of a lease; stops the run once enough workers failed it.
    void record_failure(Storage& storage, Run& run, const Lease& lease,
                        const Release& release) const;
    // Records that a build of a run's version died of SIGILL on the releasing worker
    // (version_builds.cpp): it is leased that build no more.
    absl::Status refuse_build(Storage& storage, const Run& run, const Release& release) const;
    // Builds the grant of a new lease.
    LeaseGrant grant(Storage& storage, Lease lease, Run run);
    // Returns what the scheduler knows of a worker: its registration, and the versions it
    // refused, the runs it is barred from and the runs it failed.
    WorkerProfile profile_of(Storage& storage, const Worker& worker) const;
    // Returns what the scheduler knows of an active run (its versions read from storage).
    RunCandidate candidate_of(Storage& storage, const Run& run) const;
    // Reads a run into the candidate pool again: in it while active with pairs to lease.
    void refresh_candidate(Storage& storage, int64_t run_id);
    // Brings the candidate pool up to date: every active run the first time, then the runs
    // touched since.
    void sync_candidates(Storage& storage);
    // Returns the run the scheduler gives the worker (see request_work), validated against
    // storage; publishes the quarantines it passes over.
    std::optional<Run> choose_for(Storage& storage, int64_t worker_id, const WorkerProfile& profile,
                                  const std::vector<int64_t>& avoid_runs, int64_t now);

    Options options_;
    std::function<int64_t()> now_ms_;
    EventBus* events_;
    // Keyed by run id and creation time, so a run id reused after a rollback misses.
    BookCache books_;  // at most max_cached_books runs and 256 MiB
    // The active runs a lease may come from, in serving order (scheduler.h).
    std::unique_ptr<CandidatePool> candidates_ = std::make_unique<CandidatePool>();
    // The workers each token has seen lately (the cap on a token's active workers), filled
    // from storage at the first worker call.
    std::unique_ptr<ActiveWorkers> active_ = std::make_unique<ActiveWorkers>();
    // The versions of the runs leased lately (a lease request read them twice).
    std::unique_ptr<RunVersions> run_versions_ = std::make_unique<RunVersions>();
    std::unique_ptr<RunFits> run_fits_ = std::make_unique<RunFits>();  // worker_fit's
    // Each user's submissions and modifications of the last minute (admins' are not counted).
    mutable RateLimit submits_;        // per user, over a minute
    mutable RateLimit modifications_;  // per user, over a minute
};

// Recomputes a run's Elo estimate and, for regression runs, its SPRT.
void refresh_statistics(Run& run);
// Returns the test of a worker's pairs in a run against the rest of the run's (the run's
// counts include the worker's): the fit `sparring show`, `workers` and the dashboard print.
stats::Homogeneity worker_homogeneity(const Counts& worker, const Counts& run);

}  // namespace sparring::coordinator
