// The stores of the work the workers do, owned by the domain: the workers, the leases they
// hold and what goes wrong with them, the reports and games they send, and the purges of a
// worker's results. SqliteStorage implements them as part of Storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/domain/types.h"
#include "coordinator/domain/version_builds.h"

namespace sparring::coordinator {

// Workers: their registration, the lease each holds, their speeds and the versions they refused.
class WorkerStore {
  public:
    virtual ~WorkerStore() = default;

    virtual int64_t insert_worker(const Worker& worker) = 0;
    virtual std::optional<Worker> find_worker(int64_t id) = 0;
    virtual void touch_worker(int64_t id, int64_t now_ms) = 0;
    // Records the lease a worker holds; a clear (lease_id 0) applies only if it held `held`.
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

    virtual void insert_bench_mismatch(const BenchMismatch& mismatch) = 0;
    // Returns the mismatches recorded against either version of a run.
    virtual std::vector<BenchMismatch> bench_mismatches_of_run(int64_t run_id) = 0;
    // Returns the versions a worker refused because of their bench signature.
    virtual std::vector<int64_t> refused_versions(int64_t worker_id) = 0;
    // Builds per instruction set (issue 52): records once that a version's build died of
    // SIGILL on a worker (its CPU cannot run it), and returns the builds a worker so refused.
    virtual void insert_build_refusal(int64_t worker_id, const RefusedBuild& build,
                                      const std::string& message, int64_t created_ms) = 0;
    virtual std::vector<RefusedBuild> refused_builds(int64_t worker_id) = 0;
};

// Leases: the pairs a worker holds, and the leases that failed.
class LeaseStore {
  public:
    virtual ~LeaseStore() = default;

    virtual int64_t insert_lease(const Lease& lease) = 0;
    virtual std::optional<Lease> find_lease(int64_t id) = 0;
    virtual void update_lease(const Lease& lease) = 0;
    virtual std::vector<Lease> leases_expiring_before(int64_t time_ms) = 0;
    virtual std::vector<Lease> leases_of_run(int64_t run_id) = 0;
    // Moves the expiry of every held lease to at least time_ms.
    virtual void extend_leases(int64_t time_ms) = 0;
    // Returns how many leases the workers of a token hold, or at_most if they hold more.
    virtual int64_t count_leases_of_token(int64_t token_id, int64_t at_most) = 0;

    // Records the builds a lease's games were played with (their levels, GameBuilds).
    virtual void set_lease_builds(int64_t lease_id, const std::string& test,
                                  const std::string& base) = 0;
    virtual void insert_lease_failure(const LeaseFailure& failure) = 0;
    // Returns a run's failed leases, per worker: the count and the latest message and time.
    virtual std::vector<LeaseFailure> lease_failures_of_run(int64_t run_id) = 0;
    // Returns the runs a worker failed at least `min_failures` times.
    virtual std::vector<int64_t> failed_runs(int64_t worker_id, int min_failures) = 0;
    // Returns a run's games lost by faults, per worker, version at fault and fault (the
    // games of purged workers included: the faults happened).
    virtual std::vector<FaultCount> fault_counts(int64_t run_id) = 0;
    // Counts a stored game's engine-output warnings into its run's, per version and check
    // (the first game of each keeps its example).
    virtual void add_output_warnings(int64_t run_id, uint64_t game,
                                     const std::vector<GameOutputWarning>& warnings) = 0;
    // Returns a run's engine-output warnings per version and check, most games first (the
    // games of purged workers included: their engines wrote those lines).
    virtual std::vector<OutputWarningCount> output_warnings(int64_t run_id) = 0;
};

// Reports: what the workers report on their leases, the pairs each counted and the games.
class ReportStore {
  public:
    virtual ~ReportStore() = default;

    // Returns the digest of a recorded report, if recorded.
    virtual std::optional<std::string> find_report_digest(int64_t lease_id, uint32_t sequence) = 0;
    virtual void insert_report(const ReportRecord& report) = 0;
    // Returns when the last report on a lease arrived, if any did.
    virtual std::optional<int64_t> last_report_ms(int64_t lease_id) = 0;
    // Returns a run's counted (unpurged) reports with ids above after_id (0: all), in the
    // order they were counted, without digests.
    virtual std::vector<ReportRecord> list_reports(int64_t run_id, int64_t after_id) = 0;
    // Returns a run's latest counted (unpurged) reports, newest first, at most `limit`, with
    // their counts and times (a run's throughput; no digests).
    virtual std::vector<ReportRecord> recent_reports(int64_t run_id, int limit) = 0;
    // Returns each worker's counted (unpurged) pairs in a run, by worker id, with its name and
    // CPU class (workers.cpu_class, empty for none).
    virtual std::vector<WorkerFit> worker_counts(int64_t run_id) = 0;
    // Returns one worker's counted (unpurged) pairs in a run.
    virtual Counts worker_counts(int64_t run_id, int64_t worker_id) = 0;
    // Returns the run of a worker's latest counted report, if any.
    virtual std::optional<int64_t> last_reported_run(int64_t worker_id) = 0;
    virtual void insert_game(const StoredGame& game) = 0;
    // Returns up to max_games of a run's games numbered from start_game on, in order, read one
    // by one and stopping after the game that takes their PGN past max_bytes.
    virtual std::vector<StoredGame> list_games(int64_t run_id, uint64_t start_game, int max_games,
                                               size_t max_bytes = SIZE_MAX) = 0;
};

// Purges: a worker's counted results in a run set aside.
class PurgeStore {
  public:
    virtual ~PurgeStore() = default;

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
};

}  // namespace sparring::coordinator
