// Scaled clocks end to end (issue 30): workers measure their speed with the run's engine
// (Debian's Stockfish here), play the clock multiplied by reference / measured speed, report
// the factor, and write it into each game's PGN; a worker too slow for a run hands its lease
// back once and is leased none of it after; a worker whose speed drops mid-run measures again
// and plays the rest with the larger factor.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "cluster.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

class ScaledClockTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Adds Stockfish as version `name`, run through `command` (Stockfish itself by default).
    void add_stockfish(const std::string& name, const std::string& command = kStockfish) {
        const CommandResult added =
            cluster->cli({"versions", "add", name, "--uci", command, "--option", "Hash=16"});
        ASSERT_EQ(added.status, 0) << added.err;
    }

    std::unique_ptr<Cluster> cluster;
};

// Every report of a run with a reference speed carries the worker's speed and the factor it
// came from; the PGN of each game says the factor and the clock it scaled; the run, `show`,
// `workers` and ListWorkers show the speed and the factors.
TEST_F(ScaledClockTest, AWorkerPlaysTheClockTimesReferenceOverItsSpeedAndSaysSo) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "1", "--reference-nps", "200000",
        "--min-clock-factor", "0.001", "--max-clock-factor", "1000"});
    cluster->add_version("a");
    add_stockfish("sf");
    cluster->start_worker("w", 1, {"--uci-engines", kStockfish});
    const CommandResult r =
        cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "4", "--tc", "2+0.02"});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(run.spec().reference_nps(), 200000u);  // the coordinator's, as nothing else says

    EXPECT_EQ(cluster->query("SELECT count(*) FROM results WHERE run_id = 1 AND nps = 0"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM results WHERE run_id = 1 AND "
                             "abs(clock_factor - 200000.0 / nps) > 1e-6 * clock_factor"),
              0);
    ASSERT_EQ(run.clocks_size(), 1) << run.DebugString();
    const v1::WorkerClock& clock = run.clocks(0);
    EXPECT_EQ(clock.worker_name(), "w");
    EXPECT_EQ(clock.pairs(), 2u);
    EXPECT_GT(clock.last_nps(), 0u);
    EXPECT_DOUBLE_EQ(clock.last_factor(), 200000.0 / double(clock.last_nps()));

    // Each game's PGN: the factor, the clock as submitted, and the scaled clock it played.
    const CommandResult pgn = cluster->cli({"export", "1"});
    ASSERT_EQ(pgn.status, 0) << pgn.err;
    size_t games = 0;
    for (size_t at = pgn.out.find("[ClockFactor \""); at != std::string::npos;
         at = pgn.out.find("[ClockFactor \"", at + 1)) {
        ++games;
        const double factor = std::stod(pgn.out.substr(at + 14));
        EXPECT_NEAR(factor, clock.last_factor(), 1e-3 + 0.5 * clock.last_factor())
            << "factors of one worker and one engine stay near each other";
    }
    EXPECT_EQ(games, 4u) << pgn.out;
    size_t reference_tags = 0;
    for (size_t at = pgn.out.find("[ReferenceTimeControl \"2+0.02\"]"); at != std::string::npos;
         at = pgn.out.find("[ReferenceTimeControl \"2+0.02\"]", at + 1))
        ++reference_tags;
    EXPECT_EQ(reference_tags, 4u) << pgn.out;
    EXPECT_EQ(pgn.out.find("[TimeControl \"2+0.02\"]"), std::string::npos)
        << "the games played the scaled clock, not the submitted one";

    // The worker's speed with sf, kept and listed.
    auto users = cluster->users();
    v1::ListWorkersRequest list;
    v1::ListWorkersResponse workers;
    ASSERT_TRUE(
        users->ListWorkers(Cluster::context(cluster->user_token).get(), list, &workers).ok());
    ASSERT_EQ(workers.workers_size(), 1);
    ASSERT_EQ(workers.workers(0).speeds_size(), 1);
    EXPECT_EQ(workers.workers(0).speeds(0).version(), "sf");
    EXPECT_EQ(workers.workers(0).speeds(0).nps(), clock.last_nps());
    EXPECT_EQ(workers.workers(0).speeds(0).games_at_once(), 1u);
    const CommandResult listed = cluster->cli({"workers"});
    EXPECT_NE(listed.out.find("speeds (scaled clocks):"), std::string::npos) << listed.out;
    const CommandResult show = cluster->cli({"show", "1"});
    EXPECT_NE(show.out.find("clock factors"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("defined at 200000 nodes per second of sf"), std::string::npos)
        << show.out;
}

// A run whose reference speed is far above this worker's: the worker measures, hands the lease
// back saying why, and the coordinator keeps its speed and leases it none of the run — it plays
// a run of lower priority instead, while the fast run keeps its one released lease.
TEST_F(ScaledClockTest, AWorkerTooSlowForARunHandsItBackOnceAndPlaysAnotherRun) {
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1"});
    cluster->add_version("a");
    add_stockfish("sf");
    CommandResult r =
        cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "4", "--tc", "10+0.1",
                      "--reference-nps", "1000000000000", "--priority", "10"});
    ASSERT_EQ(r.status, 0) << r.err;
    r = cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "4", "--tc", "nodes=500"});
    ASSERT_EQ(r.status, 0) << r.err;
    Process& worker = cluster->start_worker("slowpoke", 1, {"--uci-engines", kStockfish});
    ASSERT_EQ(cluster->wait_for_run(2, 300s).state(), v1::RUN_STATE_FINISHED);

    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE run_id = 1"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE run_id = 1 AND state = "
                             "'released'"),
              1);
    EXPECT_EQ(cluster->query("SELECT pairs_done FROM runs WHERE id = 1"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM lease_failures"), 0)
        << "too slow is not an engine failure";
    EXPECT_EQ(cluster->query("SELECT count(*) FROM worker_speeds s JOIN versions v ON "
                             "v.id = s.version_id WHERE v.name = 'sf' AND s.nps > 0"),
              1);
    EXPECT_EQ(count_in(worker.log_path(), "its clock would be scaled by"), 1u);
    EXPECT_EQ(count_in(worker.log_path(), "handing the lease back"), 1u);
    const v1::RunStatus fast = cluster->wait_for_run(2, 1s);
    EXPECT_EQ(fast.clocks_size(), 0) << "a run at nodes scales nothing";
    EXPECT_EQ(cluster->query("SELECT count(*) FROM results WHERE run_id = 2 AND "
                             "(nps != 0 OR clock_factor != 0)"),
              0);
}

// A worker whose speed drops mid-run (its engine stopped three quarters of the time, as a
// machine given to other work) measures again after --speed-every-seconds and plays the rest
// of the run with a larger factor; the run's stored speed is the new one.
TEST_F(ScaledClockTest, AWorkerWhoseSpeedDropsMidRunScalesTheRestOfItsGamesMore) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "1", "--reference-nps", "100000",
        "--min-clock-factor", "0.001", "--max-clock-factor", "1000"});
    const std::string flag = cluster->dir + "/slow-down";
    const std::string slowed = cluster->dir + "/stockfish-slowed";
    // Stockfish with the wrapper's standard input and output; while `flag` exists a loop stops
    // it for 30 ms in every 40.
    std::ofstream(slowed) << "#!/bin/bash\n"
                             "exec 3<&0\n"
                          << kStockfish << " <&3 3<&- &\n"
                          << "pid=$!\n"
                             "( while kill -0 $pid 2>/dev/null; do\n"
                             "    if [ -e "
                          << flag
                          << " ]; then kill -STOP $pid; sleep 0.03; kill -CONT $pid; fi\n"
                             "    sleep 0.01\n"
                             "  done ) &\n"
                             "wait $pid\n";
    std::filesystem::permissions(slowed, std::filesystem::perms::owner_all);
    cluster->add_version("a");
    add_stockfish("sf", slowed);
    cluster->start_worker("w", 1, {"--uci-engines", slowed, "--speed-every-seconds", "1"});
    const CommandResult r =
        cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "12", "--tc", "1+0.01"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(wait_until(
        [&] { return cluster->query("SELECT count(*) FROM results WHERE run_id = 1") >= 1; },
        300s));
    std::ofstream(flag) << "slow\n";
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    ASSERT_EQ(run.clocks_size(), 1) << run.DebugString();
    const v1::WorkerClock& clock = run.clocks(0);
    EXPECT_GT(clock.max_factor(), 1.5 * clock.min_factor())
        << "speeds measured: " << clock.min_factor() << " .. " << clock.max_factor();
    EXPECT_GT(clock.last_factor(), 1.5 * clock.min_factor()) << "the last lease was measured slow";
    EXPECT_GE(cluster->query("SELECT count(DISTINCT nps) FROM results WHERE run_id = 1"), 2);
    EXPECT_EQ(cluster->query("SELECT nps FROM worker_speeds"),
              cluster->query("SELECT nps FROM results WHERE run_id = 1 ORDER BY id DESC LIMIT 1"));
}

}  // namespace
}  // namespace sparring::testing
