// Storage on an SQLite file: WAL mode, explicit transactions, cached prepared statements,
// numbered migrations applied when the file is opened.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "coordinator/domain/storage.h"
#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

// Checks a database file before it is served (PRAGMA quick_check: every page and index
// readable and consistent); throws StorageError saying how to restore a damaged one from a
// backup. A missing file passes: it is created empty.
void check_database(const std::string& path);

class SqliteStorage final : public Storage {
  public:
    using Access = Database::Access;

    // Opens or creates the database file and brings its schema up to date. Read-only: opens
    // an existing file of this build's schema version (a backup, say) and never writes it;
    // a write throws StorageError.
    explicit SqliteStorage(const std::string& path, Access access = Access::ReadWrite);
    // The connection itself: a test observes the statements a path prepares.
    Database& database() { return db_; }

    // TransactionPort (domain/transaction_port.h)
    void begin(bool write) override;
    void commit() override;
    void rollback() override;
    void savepoint() override;
    void release_savepoint() override;
    void rollback_to_savepoint() override;
    void after_commit(std::function<void()> fn) override;
    std::vector<std::function<void()>> take_committed() override;

    // TokenStore (domain/token_store.h)
    int64_t insert_token(const Token& token, std::string_view hash) override;
    std::optional<Token> find_token(std::string_view hash) override;
    std::vector<Token> list_tokens() override;
    bool revoke_token(int64_t id) override;

    // VersionStore (domain/version_store.h)
    std::optional<Version> find_version(int64_t id) override;
    std::optional<Version> find_version(std::string_view name) override;
    int64_t insert_version(const Version& version) override;
    std::vector<Version> list_versions() override;
    bool insert_engine(const EngineFile& engine) override;
    std::optional<EngineFile> find_engine(std::string_view sha256) override;
    std::vector<EngineFile> list_engines() override;
    std::vector<EngineFile> unreferenced_engines(int64_t recorded_before_ms) override;
    void delete_engine(std::string_view sha256) override;

    // RunStore (domain/run_store.h)
    std::optional<Run> find_run(int64_t id) override;
    Book load_book(int64_t run_id) override;
    int64_t insert_run(const Run& run) override;
    std::vector<Run> list_runs(const std::vector<RunState>& states, int limit) override;
    std::vector<Run> find_runs(const RunQuery& query, int64_t* total) override;
    int64_t count_active_runs_of_owner(std::string_view owner) override;
    void update_run_settings(const Run& run) override;
    void update_run(const Run& run) override;
    void insert_follow_up(int64_t run_id, const FollowUpSpec& follow_up) override;
    std::optional<FollowUpSpec> find_follow_up(int64_t run_id) override;
    void insert_run_link(const RunLink& link) override;
    std::vector<RunLink> run_links(int64_t run_id) override;
    void insert_run_change(const RunChange& change) override;
    std::vector<RunChange> run_changes(int64_t run_id) override;
    std::vector<RunChange> latest_run_changes(int64_t run_id, uint32_t skip_newest, uint32_t limit,
                                              int64_t* total) override;
    void insert_free_pairs(int64_t run_id, PairRange range) override;
    std::optional<PairRange> take_free_pairs(int64_t run_id, uint64_t max_count) override;
    void delete_free_pairs(int64_t run_id) override;

    // WorkerStore (domain/work_stores.h)
    int64_t insert_worker(const Worker& worker) override;
    std::optional<Worker> find_worker(int64_t id) override;
    void touch_worker(int64_t id, int64_t now_ms) override;
    void set_worker_lease(int64_t id, int64_t lease_id, int64_t held) override;
    void add_worker_games(int64_t id, int64_t games) override;
    std::vector<WorkerSummary> list_workers(int64_t seen_since_ms) override;
    void upsert_worker_speed(const WorkerSpeed& speed) override;
    std::optional<WorkerSpeed> find_worker_speed(int64_t worker_id, int64_t version_id) override;
    std::vector<WorkerSpeed> worker_speeds(int64_t worker_id) override;
    std::vector<WorkerClock> worker_clocks_of_run(int64_t run_id) override;
    void insert_bench_mismatch(const BenchMismatch& mismatch) override;
    std::vector<BenchMismatch> bench_mismatches_of_run(int64_t run_id) override;
    std::vector<int64_t> refused_versions(int64_t worker_id) override;
    void insert_build_refusal(int64_t worker_id, const RefusedBuild& build,
                              const std::string& message, int64_t created_ms) override;
    std::vector<RefusedBuild> refused_builds(int64_t worker_id) override;

    // LeaseStore (domain/work_stores.h)
    int64_t insert_lease(const Lease& lease) override;
    std::optional<Lease> find_lease(int64_t id) override;
    void update_lease(const Lease& lease) override;
    std::vector<Lease> leases_expiring_before(int64_t time_ms) override;
    std::vector<Lease> leases_of_run(int64_t run_id) override;
    void extend_leases(int64_t time_ms) override;
    int64_t count_leases_of_token(int64_t token_id, int64_t at_most) override;
    void set_lease_builds(int64_t lease_id, const std::string& test,
                          const std::string& base) override;
    void insert_lease_failure(const LeaseFailure& failure) override;
    std::vector<LeaseFailure> lease_failures_of_run(int64_t run_id) override;
    std::vector<int64_t> failed_runs(int64_t worker_id, int min_failures) override;
    std::vector<FaultCount> fault_counts(int64_t run_id) override;
    void add_output_warnings(int64_t run_id, uint64_t game,
                             const std::vector<GameOutputWarning>& warnings) override;
    std::vector<OutputWarningCount> output_warnings(int64_t run_id) override;

    // ReportStore (domain/work_stores.h)
    std::optional<std::string> find_report_digest(int64_t lease_id, uint32_t sequence) override;
    void insert_report(const ReportRecord& report) override;
    std::optional<int64_t> last_report_ms(int64_t lease_id) override;
    std::vector<ReportRecord> list_reports(int64_t run_id, int64_t after_id) override;
    std::vector<ReportRecord> recent_reports(int64_t run_id, int limit) override;
    std::vector<WorkerFit> worker_counts(int64_t run_id) override;
    Counts worker_counts(int64_t run_id, int64_t worker_id) override;
    std::optional<int64_t> last_reported_run(int64_t worker_id) override;
    void insert_game(const StoredGame& game) override;
    std::vector<StoredGame> list_games(int64_t run_id, uint64_t start_game, int max_games,
                                       size_t max_bytes = SIZE_MAX) override;

    // GameExportStore (domain/game_export.h; sqlite_storage_export.cpp)
    std::vector<int64_t> export_runs(const ExportFilter& filter) override;
    std::vector<ExportedGame> export_games(int64_t run_id, int64_t after_game,
                                           const ExportFilter& filter, int max_games,
                                           size_t max_bytes) override;

    // PurgeStore (domain/work_stores.h)
    int64_t insert_purge(const Purge& purge) override;
    std::vector<Purge> list_purges(int64_t run_id) override;
    std::vector<int64_t> purged_runs(int64_t worker_id) override;
    std::vector<uint64_t> purge_worker_games(int64_t run_id, int64_t worker_id,
                                             int64_t purge_id) override;

    // Outbox (domain/outbox.h)
    int64_t insert_notification(const Notification& notification) override;
    std::vector<Notification> due_notifications(int64_t now_ms, int limit,
                                                const std::vector<std::string>& busy) override;
    void notification_delivered(int64_t id, int64_t now_ms) override;
    void notification_failed(int64_t id, int attempts, int64_t next_ms,
                             const std::string& error) override;
    void notification_given_up(int64_t id, std::string_view state, int attempts,
                               const std::string& error) override;
    int64_t drop_notifications(std::string_view url, std::string_view owner,
                               const std::string& reason) override;
    std::string find_notify_url(std::string_view user) override;
    void set_notify_url(std::string_view user, std::string_view url) override;

    // TuneStore (domain/kind_stores.h)
    void insert_tune(const TuneState& state) override;
    std::optional<TuneState> find_tune(int64_t run_id) override;
    void update_tune(const TuneState& state) override;
    void insert_tune_point(int64_t run_id, const TunePoint& point) override;
    std::vector<TunePoint> list_tune_points(int64_t run_id) override;
    void insert_lease_theta(int64_t lease_id, const std::vector<double>& theta) override;
    std::optional<std::vector<double>> find_lease_theta(int64_t lease_id) override;

    // GenerateStore (domain/kind_stores.h)
    void insert_generate(const GenerateState& state) override;
    std::optional<GenerateState> find_generate(int64_t run_id) override;
    void insert_positions(int64_t run_id, const StoredPositions& positions) override;
    void insert_import_key(int64_t run_id, std::string_view key) override;
    std::optional<int64_t> find_active_import(std::string_view key) override;
    uint64_t count_position_games(int64_t run_id) override;
    std::vector<StoredPositions> list_positions(int64_t run_id, uint64_t start_game,
                                                int max_games) override;

    // TrainStore (domain/kind_stores.h)
    void insert_train(const TrainState& state) override;
    std::optional<TrainState> find_train(int64_t run_id) override;
    void update_train(const TrainState& state) override;
    void insert_train_loss(int64_t run_id, int epoch, double loss) override;
    void delete_train_loss(int64_t run_id) override;

    // EvidenceStore (domain/evidence.h, sqlite_storage_evidence.cpp)
    int64_t count_full_evidence(int64_t run_id, int64_t version_id, GameEnding fault) override;
    void insert_evidence(int64_t run_id, uint64_t game, int64_t version_id, GameEnding fault,
                         const GameEvidence& evidence, bool full) override;
    std::vector<FaultyGame> list_faulty_games(int64_t run_id, int max_games) override;
    std::vector<FaultKindCount> faulty_game_counts(int64_t run_id) override;
    std::optional<FaultyGame> find_faulty_game(int64_t run_id, uint64_t game) override;

    // FaultStore (domain/fault_store.h, sqlite_storage_faults.cpp)
    std::optional<RunFaults> find_run_faults(int64_t run_id) override;
    void put_run_faults(const RunFaults& faults) override;
    std::vector<FaultTally> fault_tallies(int64_t run_id) override;

    // ChainStore (domain/kind_stores.h)
    void insert_chain(const ChainState& state) override;
    std::optional<ChainState> find_chain(int64_t run_id) override;
    void save_chain_generation(int64_t run_id, const ChainGeneration& generation) override;

  private:
    // Reads a version from the current row of a statement selecting the version columns.
    Version read_version(const Statement& s);
    // Reads the rows of a statement selecting the lease columns.
    std::vector<Lease> read_leases(Statement& s);

    Database db_;
    std::vector<std::function<void()>> pending_;    // deferred by the open transaction
    size_t savepoint_mark_ = 0;                     // pending_ entries before the savepoint
    std::vector<std::function<void()>> committed_;  // deferred by committed transactions
};

// Returns the factory of connections to the database file at path: what the composition roots
// hand out to the executors, the trainer, the engine collector and the admin commands.
OpenStorage open_sqlite(std::string path,
                        SqliteStorage::Access access = SqliteStorage::Access::ReadWrite);

}  // namespace sparring::coordinator
