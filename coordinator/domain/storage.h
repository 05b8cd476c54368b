// The coordinator's storage port, owned by the domain: transactions and the reads and writes the
// core and the kinds need.
// SqliteStorage implements it; each instance is one connection used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/kind_stores.h"
#include "coordinator/domain/storage_error.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// What a listing of runs selects: filters, the order and one page.
struct RunQuery {
    std::vector<RunState> states;  // any when empty
    std::optional<RunKind> kind;
    std::string version;               // the test or base version's name; any when empty
    std::string text;                  // found in the description, a version name or the result
    std::optional<std::string> owner;  // the submitter's user name ("" for runs without one)
    std::string time_control;          // as stored ("10+0.1", "nodes=1000"); any when empty
    std::string result;                // the result starts with it ("H1"); any when empty
    int64_t created_from_ms = 0;       // created at or after; 0: any
    int64_t created_until_ms = 0;      // created before; 0: any
    bool active_first = false;  // active runs by priority first, then the others newest first
    int offset = 0;
    int limit = 100;
};

// The whole port: what the core needs, and every kind's store (a kind receives only its own).
class Storage : public TuneStore, public ChainStore {
  public:
    // Starts a transaction; a write transaction takes the write lock at once.
    virtual void begin(bool write) = 0;
    virtual void commit() = 0;
    virtual void rollback() = 0;
    // Marks a point inside the transaction that rollback_to_savepoint returns to.
    virtual void savepoint() = 0;
    virtual void release_savepoint() = 0;
    virtual void rollback_to_savepoint() = 0;
    // Defers fn until the current transaction commits; rolling back the transaction, or to a
    // savepoint marked before the call, discards it.
    virtual void after_commit(std::function<void()> fn) = 0;
    // Returns the deferred functions of the transactions committed since the last call, in
    // the order they were deferred, for the caller to run.
    virtual std::vector<std::function<void()>> take_committed() = 0;

    virtual int64_t insert_token(const Token& token, std::string_view hash) = 0;
    // Returns the unrevoked token with this hash.
    virtual std::optional<Token> find_token(std::string_view hash) = 0;
    virtual std::vector<Token> list_tokens() = 0;
    // Revokes a token; returns false if there is no such token.
    virtual bool revoke_token(int64_t id) = 0;

    virtual int64_t insert_version(const Version& version) = 0;
    virtual std::vector<Version> list_versions() = 0;

    // Records an uploaded engine file; returns false (changing nothing) when it is known.
    virtual bool insert_engine(const EngineFile& engine) = 0;
    virtual std::optional<EngineFile> find_engine(std::string_view sha256) = 0;
    virtual std::vector<EngineFile> list_engines() = 0;
    // Returns the engine files no version refers to, recorded before the given time.
    virtual std::vector<EngineFile> unreferenced_engines(int64_t recorded_before_ms) = 0;
    // Forgets an engine file no version refers to.
    virtual void delete_engine(std::string_view sha256) = 0;

    // Inserts a run with its book.
    virtual int64_t insert_run(const Run& run) = 0;
    // Returns runs in the given states (all when empty), newest first.
    virtual std::vector<Run> list_runs(const std::vector<RunState>& states, int limit) = 0;
    // Returns the page of runs a query selects (newest first unless active_first), and sets
    // *total to how many it selects in all.
    virtual std::vector<Run> find_runs(const RunQuery& query, int64_t* total) = 0;
    // Returns how many active runs a user owns.
    virtual int64_t count_active_runs_of_owner(std::string_view owner) = 0;
    // Writes what a user may change of a run after its submission: priority, throughput,
    // games and description.
    virtual void update_run_settings(const Run& run) = 0;
    // Adds a notification to the outbox; returns its id.
    virtual int64_t insert_notification(const Notification& notification) = 0;
    // Returns the oldest pending notification due at now of each destination not in busy, up
    // to limit of them, oldest first.
    virtual std::vector<Notification> due_notifications(int64_t now_ms, int limit,
                                                        const std::vector<std::string>& busy) = 0;
    // Records a delivery, or a failed attempt and when to try again.
    virtual void notification_delivered(int64_t id, int64_t now_ms) = 0;
    virtual void notification_failed(int64_t id, int attempts, int64_t next_ms,
                                     const std::string& error) = 0;
    // Ends a pending notification unsent: state "failed" (its attempts ran out) or "dropped".
    virtual void notification_given_up(int64_t id, std::string_view state, int attempts,
                                       const std::string& error) = 0;
    // Drops the pending notifications to a URL of the runs a user owns; returns how many.
    virtual int64_t drop_notifications(std::string_view url, std::string_view owner,
                                       const std::string& reason) = 0;
    // A user's notification URL ("" for none).
    virtual std::string find_notify_url(std::string_view user) = 0;
    virtual void set_notify_url(std::string_view user, std::string_view url) = 0;
    // Records the follow-up a run starts when it ends.
    virtual void insert_follow_up(int64_t run_id, const FollowUpSpec& follow_up) = 0;
    // Returns a run's follow-up.
    virtual std::optional<FollowUpSpec> find_follow_up(int64_t run_id) = 0;
    // Records that a run leads to another.
    virtual void insert_run_link(const RunLink& link) = 0;
    // Returns the links of a run, as parent and as child.
    virtual std::vector<RunLink> run_links(int64_t run_id) = 0;
    // Records a change made to a run after its submission.
    virtual void insert_run_change(const RunChange& change) = 0;
    // Returns the changes made to a run, oldest first.
    virtual std::vector<RunChange> run_changes(int64_t run_id) = 0;
    // Returns up to limit changes of a run, oldest first, before the newest skip_newest ones,
    // and sets *total to how many the run has.
    virtual std::vector<RunChange> latest_run_changes(int64_t run_id, uint32_t skip_newest,
                                                      uint32_t limit, int64_t* total) = 0;
    // Writes a run's state, result, progress, counts and statistics.
    virtual void update_run(const Run& run) = 0;

    // Adds a range of pairs back to a run's pool.
    virtual void insert_free_pairs(int64_t run_id, PairRange range) = 0;
    // Removes up to max_count pairs from the start of a run's lowest free range.
    virtual std::optional<PairRange> take_free_pairs(int64_t run_id, uint64_t max_count) = 0;
    virtual void delete_free_pairs(int64_t run_id) = 0;

    virtual int64_t insert_worker(const Worker& worker) = 0;
    virtual std::optional<Worker> find_worker(int64_t id) = 0;
    virtual void touch_worker(int64_t id, int64_t now_ms) = 0;
    // Records the batch a worker holds; a clear (lease_id 0) applies only if it held `held`.
    virtual void set_worker_lease(int64_t id, int64_t lease_id, int64_t held) = 0;
    virtual void add_worker_games(int64_t id, int64_t games) = 0;
    // Returns workers seen since the given time, with the run each plays now.
    virtual std::vector<WorkerSummary> list_workers(int64_t seen_since_ms) = 0;
    // Scaled clocks: keeps a worker's speed with a version's engine (one per pair, the last);
    // returns it; returns all of a worker's, newest first, with the versions' names; and
    // returns how each worker scaled a run's clock over its counted reports.
    virtual void upsert_worker_speed(const WorkerSpeed& speed) = 0;
    virtual std::optional<WorkerSpeed> find_worker_speed(int64_t worker_id, int64_t version_id) = 0;
    virtual std::vector<WorkerSpeed> worker_speeds(int64_t worker_id) = 0;
    virtual std::vector<WorkerClock> worker_clocks_of_run(int64_t run_id) = 0;
    // Returns how many workers of a token were seen since the given time.
    virtual int64_t count_workers_of_token(int64_t token_id, int64_t seen_since_ms) = 0;
    // Returns how many leases the workers of a token hold, or at_most if they hold more.
    virtual int64_t count_leases_of_token(int64_t token_id, int64_t at_most) = 0;

    virtual int64_t insert_lease(const Lease& batch) = 0;
    virtual std::optional<Lease> find_lease(int64_t id) = 0;
    virtual void update_lease(const Lease& batch) = 0;
    virtual std::vector<Lease> leases_expiring_before(int64_t time_ms) = 0;
    virtual std::vector<Lease> leases_of_run(int64_t run_id) = 0;
    // Moves the expiry of every leased batch to at least time_ms.
    virtual void extend_leases(int64_t time_ms) = 0;

    // Returns the digest of a recorded report, if recorded.
    virtual std::optional<std::string> find_report_digest(int64_t batch_id, uint32_t sequence) = 0;
    virtual void insert_report(const ReportRecord& report) = 0;
    // Returns when the last report on a batch arrived, if any did.
    virtual std::optional<int64_t> last_report_ms(int64_t batch_id) = 0;
    // Returns a run's counted (unpurged) reports with ids above after_id (0: all), in the
    // order they were counted, without digests.
    virtual std::vector<ReportRecord> list_reports(int64_t run_id, int64_t after_id) = 0;
    // Returns each worker's counted (unpurged) pairs in a run, by worker id, with its name.
    virtual std::vector<WorkerFit> worker_counts(int64_t run_id) = 0;
    // Returns one worker's counted (unpurged) pairs in a run.
    virtual Counts worker_counts(int64_t run_id, int64_t worker_id) = 0;
    // Returns the run of a worker's latest counted report, if any.
    virtual std::optional<int64_t> last_reported_run(int64_t worker_id) = 0;
    // Records a purge and returns its id.
    virtual int64_t insert_purge(const Purge& purge) = 0;
    // Returns a run's purges, oldest first, with worker and token names.
    virtual std::vector<Purge> list_purges(int64_t run_id) = 0;
    // Returns the runs a worker was purged from.
    virtual std::vector<int64_t> purged_runs(int64_t worker_id) = 0;
    // Marks a worker's counted reports in a run as purged and moves its games there to
    // purged_games; returns the pair numbers of the moved games, ascending.
    virtual std::vector<uint64_t> purge_worker_games(int64_t run_id, int64_t worker_id,
                                                     int64_t purge_id) = 0;
    virtual void insert_game(const StoredGame& game) = 0;
    // Returns up to max_games of a run's games numbered from start_game on, in order, read one
    // by one and stopping after the game that takes their PGN past max_bytes.
    virtual std::vector<StoredGame> list_games(int64_t run_id, uint64_t start_game, int max_games,
                                               size_t max_bytes = SIZE_MAX) = 0;

    virtual void insert_bench_mismatch(const BenchMismatch& mismatch) = 0;
    // Returns the mismatches recorded against either version of a run.
    virtual std::vector<BenchMismatch> bench_mismatches_of_run(int64_t run_id) = 0;
    // Returns the versions a worker refused because of their bench signature.
    virtual std::vector<int64_t> refused_versions(int64_t worker_id) = 0;

    virtual void insert_lease_failure(const LeaseFailure& failure) = 0;
    // Returns a run's failed leases, per worker: the count and the latest message and time.
    virtual std::vector<LeaseFailure> lease_failures_of_run(int64_t run_id) = 0;
    // Returns the runs a worker failed at least `min_failures` times.
    virtual std::vector<int64_t> failed_runs(int64_t worker_id, int min_failures) = 0;
    // Returns a run's games lost by faults, per worker, version at fault and fault (the
    // games of purged workers included: the faults happened).
    virtual std::vector<FaultCount> fault_counts(int64_t run_id) = 0;
};

// Opens a new connection to the storage: one per thread that uses it. The composition root
// (coordinator/server.cpp, main.cpp) makes the one factory and hands it to whoever needs storage.
using OpenStorage = std::function<std::unique_ptr<Storage>()>;

}  // namespace sparring::coordinator
