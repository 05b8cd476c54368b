// The worker RPCs' per-call path reads no table that grows with the fleet by a full scan: every
// statement the core prepares while a worker registers, leases, reports, heartbeats and hands a
// lease back is collected from the connection, and its EXPLAIN QUERY PLAN must SEARCH (an
// index) rather than SCAN the workers, leases, results, games and the like. A scan added to the
// path later is caught here without a list of the queries to keep up.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "coordinator/domain/active_workers.h"
#include "coordinator/domain/run_fits.h"
#include "coordinator/storage/sqlite.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

// Tables that grow with the workers, their leases, reports and games (and their purges and
// failures); a query on the per-call path reads them through an index or not at all.
const std::set<std::string> kGrowing = {
    "workers",        "batches",          "results",        "games",          "run_workers",
    "lease_failures", "bench_mismatches", "purges",         "purged_games",   "worker_speeds",
    "free_pairs",     "token_leases",     "build_refusals", "fault_evidence", "output_warnings",
    "run_faults",     "notifications"};

class QueryPlanTest : public CoreFixture {
  protected:
    QueryPlanTest() {
        // The core's jobs on a connection whose statements the test observes.
        auto connection = std::make_unique<SqliteStorage>(db.path());
        writer_ = connection.get();
        Executor::Options write;
        write.write = true;
        executor.reset();
        executor = std::make_unique<Executor>(std::move(connection), write);
        Core::Options options = core->options();
        options.quarantine_p = 0.001;  // the fit of a worker is part of its lease request
        options.reference_nps = 0;
        core = std::make_unique<Core>(options, [this] { return now.load(); });
    }

    // Starts collecting every statement the core's connection prepares.
    void observe() {
        ASSERT_TRUE(execute([this](Storage&) {
                        writer_->database().observe_prepares([this](std::string_view sql) {
                            std::lock_guard lock(mutex_);
                            statements_.emplace(sql);
                        });
                        return absl::OkStatus();
                    }).ok());
    }

    // Returns the statements collected so far.
    std::set<std::string> statements() {
        std::lock_guard lock(mutex_);
        return statements_;
    }

  private:
    SqliteStorage* writer_ = nullptr;
    std::mutex mutex_;
    std::set<std::string> statements_;
};

// Returns the tables whose foreign keys refer to a table.
std::set<std::string> children_of(Database& db, const std::string& parent) {
    Statement& s = db.prepare(
        "SELECT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f "
        "WHERE m.type = 'table' AND f.\"table\" = ?");
    s.bind(parent);
    std::set<std::string> children;
    while (s.step()) children.insert(s.text(0));
    return children;
}

// Returns the scans of growing tables in a statement's plan, one line each ("" if none).
std::string scans_of(Database& db, const std::string& sql) {
    // An insert into a parent table plans a search of its children for rows a deferred
    // foreign key left dangling; it runs only while such a violation is pending, which the
    // schema's immediate keys never leave.
    std::set<std::string> unchecked;
    if (sql.rfind("INSERT INTO ", 0) == 0)
        unchecked = children_of(db, sql.substr(12, sql.find(' ', 12) - 12));
    Statement& plan = db.prepare("EXPLAIN QUERY PLAN " + sql);
    plan.bind();
    std::string scans;
    const bool print = std::getenv("SPARRING_PRINT_PLANS") != nullptr;  // to look at them all
    if (print) std::printf("%s\n", sql.c_str());
    while (plan.step()) {
        const std::string detail = plan.text(3);
        if (print) std::printf("    %s\n", detail.c_str());
        if (detail.rfind("SCAN ", 0) != 0) continue;
        // "SCAN workers", "SCAN w" (an alias), "SCAN workers USING INDEX ..." (still all rows).
        std::string table = detail.substr(5, detail.find(' ', 5) - 5);
        if (unchecked.count(table)) continue;
        const size_t alias = sql.find(" " + table + " ");
        bool growing = kGrowing.count(table) > 0;
        if (!growing && alias != std::string::npos)  // an alias: the table named before it
            for (const std::string& t : kGrowing)
                if (sql.find(t + " " + table + " ") != std::string::npos ||
                    sql.find(t + " AS " + table + " ") != std::string::npos)
                    growing = true;
        if (growing) scans += "  " + detail + "\n";
    }
    plan.reset();
    return scans;
}

TEST_F(QueryPlanTest, TheWorkerCallsSearchEveryTableThatGrowsWithTheFleet) {
    add_version("test");
    add_version("base", 250);
    submit(spec(RunKind::FixedGames, 400));
    // A fleet already there, with leases, reports and a failure, so the tables hold rows.
    const auto [other, other_worker] = add_worker();
    auto first = transact(
        [&, &c = other, w = other_worker](Storage& s) { return core->request_work(s, c, w); });
    ASSERT_TRUE(first.ok() && first->has_value());
    ASSERT_TRUE(transact([&, &c = other](Storage& s) {
                    return core->report_results(s, c, report(**first, 1, {0}));
                }).ok());

    observe();
    std::string secret;
    ASSERT_TRUE(execute([&](Storage& s) {
                    secret = core->create_token(s, Role::Worker, "fleet");
                    return absl::OkStatus();
                }).ok());
    const auto caller =
        transact([&](Storage& s) { return core->authenticate(s, secret, Role::Worker); });
    ASSERT_TRUE(caller.ok());
    Worker w;
    w.name = "one of many";
    w.cores = 4;
    w.memory_mb = 4096;
    w.concurrency = 2;
    const auto registered =
        transact([&](Storage& s) { return core->register_worker(s, *caller, w); });
    ASSERT_TRUE(registered.ok());
    const int64_t id = registered->id;
    auto lease = transact([&](Storage& s) { return core->request_work(s, *caller, id); });
    ASSERT_TRUE(lease.ok() && lease->has_value());
    // A repeated request (a lost reply) gets the same lease back.
    ASSERT_TRUE(transact([&](Storage& s) { return core->request_work(s, *caller, id); }).ok());
    // A heartbeat and a report; the second time the report is a duplicate, recognised.
    const auto beat_and_report = [&](const LeaseGrant& held) {
        ASSERT_TRUE(transact([&](Storage& s) {
                        return core->heartbeat(s, *caller, id, {held.lease.id});
                    }).ok());
        ASSERT_TRUE(transact([&](Storage& s) {
                        return core->report_results(s, *caller, report(held, 1, {0}));
                    }).ok());
    };
    beat_and_report(**lease);
    now += 1000;
    beat_and_report(**lease);
    Release release;
    release.worker_id = id;
    release.lease_id = (*lease)->lease.id;
    release.reason = Release::Reason::EngineFailure;
    release.message = "engine crashed";
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->release_lease(s, *caller, release); }).ok());
    auto next = transact([&](Storage& s) { return core->request_work(s, *caller, id); });
    ASSERT_TRUE(next.ok() && next->has_value());
    now += 1000;
    ASSERT_TRUE(transact([&](Storage& s) {
                    return core->report_results(s, *caller, report(**next, 1, {0}));
                }).ok());

    const std::set<std::string> seen = statements();
    ASSERT_GT(seen.size(), 10u) << "the observer saw too few statements";
    Database db(this->db.path());
    // The check sees a scan: the count of a token's workers that Register ran before issue 53.
    EXPECT_EQ(scans_of(db, "SELECT count(*) FROM workers WHERE token_id = ? AND last_seen_ms >= ?"),
              "  SCAN workers\n");
    const auto prepared = [&](const std::string& part) {
        for (const std::string& sql : seen)
            if (sql.find(part) != std::string::npos) return true;
        return false;
    };
    for (const char* part :
         {"INSERT INTO workers", "FROM workers", "INSERT INTO batches", "UPDATE batches",
          "INSERT INTO results", "INSERT INTO games", "FROM lease_failures"})
        EXPECT_TRUE(prepared(part)) << "the path did not prepare " << part;
    std::string found;
    for (const std::string& sql : seen) {
        if (sql.rfind("SAVEPOINT", 0) == 0 || sql.rfind("RELEASE", 0) == 0 ||
            sql.rfind("ROLLBACK", 0) == 0 || sql.rfind("BEGIN", 0) == 0 ||
            sql.rfind("COMMIT", 0) == 0)
            continue;
        if (const std::string scans = scans_of(db, sql); !scans.empty())
            found += sql + "\n" + scans;
    }
    EXPECT_EQ(found, "") << "full scans on the worker calls' path (of " << seen.size()
                         << " statements)";
}

// Register's count of a token's active workers, kept in memory.
TEST(ActiveWorkersTest, CountsEachTokensWorkersSeenSinceATimeAndForgetsTheOlder) {
    ActiveWorkers active;
    active.seen(1, 7, 1000);
    active.seen(2, 7, 2000);
    active.seen(3, 8, 2000);
    EXPECT_EQ(active.count(7, 0), 2);
    EXPECT_EQ(active.count(8, 0), 1);
    active.seen(1, 7, 3000);  // seen again: counted once, at its latest time
    EXPECT_EQ(active.count(7, 1500), 2);
    EXPECT_EQ(active.count(7, 2001), 1);
    active.seen(2, 7, 4000);  // back after it was forgotten
    EXPECT_EQ(active.count(7, 2001), 2);
    EXPECT_EQ(active.count(9, 0), 0);
    // Workers no longer counted are dropped once the table has grown past its sweep mark.
    for (int64_t id = 100; id < 3000; ++id) active.seen(id, 9, 5000);
    EXPECT_EQ(active.count(9, 6000), 0);
    for (int64_t id = 3000; id < 4200; ++id) active.seen(id, 9, 7000);
    EXPECT_EQ(active.count(9, 6000), 1200);
    EXPECT_LT(active.size(), 2000u);
}

// A run's worker fits serve lease requests until its counted pairs change; a run of many
// workers' fits serve for RunFits::kMaxAgeMs even then, so that its rows are not read per call.
TEST(RunFitsTest, ARunsFitsServeUntilItsPairsChangeOrForAWhileWithManyWorkers) {
    RunFits kept;
    const RunFits::Key small(1, 100), large(2, 100), reused(1, 999);
    auto few = std::make_shared<RunFits::Entry>();
    few->pairs = 10;
    few->computed_ms = 1'000;
    few->fits[7].worker_id = 7;
    kept.insert(small, few);
    EXPECT_EQ(kept.find(small, 10, 1'000'000), few);   // the same pairs: no matter how old
    EXPECT_EQ(kept.find(small, 11, 1'001), nullptr);   // one more pair: computed again
    EXPECT_EQ(kept.find(reused, 10, 1'001), nullptr);  // another run that took the same id
    auto many = std::make_shared<RunFits::Entry>();
    many->pairs = 10;
    many->computed_ms = 1'000;
    for (int64_t w = 1; w <= int64_t(RunFits::kManyWorkers); ++w) many->fits[w].worker_id = w;
    kept.insert(large, many);
    EXPECT_EQ(kept.find(large, 500, 1'000 + RunFits::kMaxAgeMs - 1), many);
    EXPECT_EQ(kept.find(large, 500, 1'000 + RunFits::kMaxAgeMs), nullptr);
    EXPECT_EQ(kept.find(large, 500, 999), nullptr);  // a clock that went back
    EXPECT_EQ(kept.find(large, 10, 1'000'000), many);
}

}  // namespace
}  // namespace sparring::coordinator::testing
