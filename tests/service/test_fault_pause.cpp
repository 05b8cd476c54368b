// Fault storms pause a run, with real coordinator, worker and CLI processes and real engines:
// Debian's Glaurung 2.2 answers `bestmove (none)` under `go nodes` (an illegal move), and an
// SPSA run of two of its options is paused with that reason, yields no version, and resumes.
// A tuning run whose engine faults on some openings only leaves those pairs out of its values.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>

#include "cluster.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kGlaurung = "/usr/games/glaurung";
constexpr const char* kFaulty = "ending IN ('time_loss', 'crash', 'stall', 'illegal_move')";

class FaultPauseServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    std::unique_ptr<Cluster> cluster;
};

// The case: a 40-game SPSA run of two Glaurung options at nodes=1000. Under the
// default bound (more than 10% of the games faulty after 20) it is paused, naming Glaurung, the
// illegal move, the count and a game that shows it; it makes no version; its owner resumes it.
TEST_F(FaultPauseServiceTest, GlaurungAtNodesIsPausedForIllegalMovesAndResumes) {
    if (!std::filesystem::exists(kGlaurung)) GTEST_SKIP() << "needs " << kGlaurung;
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "2", "--notify-url",
        "http://127.0.0.1:9/hook", "--notify-allow", "127.0.0.1:9"});
    CommandResult r = cluster->cli({"versions", "add", "glaurung", "--uci", kGlaurung});
    ASSERT_EQ(r.status, 0) << r.err;
    r = cluster->cli({"submit", "tune", "glaurung", "--param", "Space", "--param", "Aggressiveness",
                      "--games", "40", "--tc", "nodes=1000", "--verify", "--verify-fixed",
                      "--verify-games", "20"});
    ASSERT_EQ(r.status, 0) << r.err;
    cluster->start_worker("one", 2, {"--uci-engines", kGlaurung, "--report-seconds", "1"});

    // GetRun, once the run is no longer active.
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_PAUSED) << run.DebugString();
    ASSERT_TRUE(run.has_pause()) << run.DebugString();
    const v1::FaultPause& p = run.pause();
    EXPECT_EQ(p.version(), "glaurung");
    EXPECT_EQ(p.engine(), kGlaurung);
    EXPECT_EQ(p.fault(), v1::GAME_ENDING_ILLEGAL_MOVE);
    EXPECT_GE(p.games(), 20u);
    EXPECT_GT(p.faulty_games() * 100, 10 * p.games());
    EXPECT_GE(p.fault_games(), 3u);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1 AND ending = "
                             "'illegal_move'"),
              int64_t(p.fault_games()));
    // The example game is one of them, and its PGN says what Glaurung played.
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1 AND ending = "
                             "'illegal_move' AND game = " +
                             std::to_string(p.example_game())),
              1);
    EXPECT_NE(p.reason().find("version 'glaurung' (/usr/games/glaurung) lost"), std::string::npos)
        << p.reason();
    EXPECT_NE(p.reason().find("by illegal move"), std::string::npos) << p.reason();
    EXPECT_EQ(run.spec().fault_bound().percent(), 10u);
    EXPECT_EQ(run.spec().fault_bound().min_games(), 20u);

    // Shown: `show`, `runs`; told: the webhook's notice waits in the outbox.
    r = cluster->cli({"show", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PAUSED:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("by illegal move"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sparring resume 1"), std::string::npos) << r.out;
    r = cluster->cli({"runs", "--paused"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("paused"), std::string::npos) << r.out;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM notifications WHERE run_id = 1 AND body LIKE "
                             "'%\"event\":\"run_paused\"%' AND body LIKE '%illegal_move%'"),
              1);

    // Nothing is played while paused, and no version comes of it.
    const int64_t games = cluster->query("SELECT count(*) FROM games WHERE run_id = 1");
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1"), games);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE run_id = 1 AND state = 'leased'"),
              0);
    r = cluster->cli({"versions", "add", "glaurung-tuned", "--from-run", "1"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("paused for faults"), std::string::npos) << r.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 1) << "no verification started";

    // Resumed with the bound off, it plays its 40 games; the change is in its history.
    r = cluster->cli({"resume", "1", "--fault-bound", "off"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("run 1 resumed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fault bound off"), std::string::npos) << r.out;
    r = cluster->cli({"resume", "1"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("only a run paused for faults resumes"), std::string::npos) << r.err;
    const v1::RunStatus finished = cluster->wait_for_run(1, 300s);
    EXPECT_EQ(finished.state(), v1::RUN_STATE_FINISHED) << finished.DebugString();
    EXPECT_EQ(finished.games(), 40u);
    r = cluster->cli({"show", "1"});
    EXPECT_NE(r.out.find("changed: state 'paused' -> 'active'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("changed: fault_bound '10%/20' -> 'off'"), std::string::npos) << r.out;
}

// A tuning run of an engine that answers `bestmove (none)` from some openings only
// (tests/match/fault_by_opening_engine.sh), with its bound off: it finishes, and the pairs
// holding a faulty game moved no value: counted apart, shown, not in the trajectory.
TEST_F(FaultPauseServiceTest, ATuningRunLeavesPairsWithFaultyGamesOutOfItsValues) {
    if (!std::filesystem::exists("/usr/games/stockfish")) GTEST_SKIP() << "needs Stockfish";
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "2"});
    const std::string engine =
        std::string(SPARRING_SOURCE_DIR) + "/tests/match/fault_by_opening_engine.sh";
    CommandResult r = cluster->cli({"versions", "add", "fbo", "--uci", engine});
    ASSERT_EQ(r.status, 0) << r.err;
    r = cluster->cli({"submit", "tune", "fbo", "--param", "Weight", "--games", "24", "--tc",
                      "nodes=500", "--seed", "3", "--fault-bound", "off"});
    ASSERT_EQ(r.status, 0) << r.err;
    cluster->start_worker("one", 2, {"--uci-engines", engine, "--report-seconds", "1"});
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.DebugString();

    const int64_t faulty_pairs = cluster->query(
        std::string("SELECT count(DISTINCT game / 2) FROM games WHERE run_id = 1 AND ") + kFaulty);
    ASSERT_GT(faulty_pairs, 0) << "the book's seed gives faulty openings";
    ASSERT_LT(faulty_pairs, 12) << "and clean ones";
    EXPECT_EQ(int64_t(run.tune().pairs_faulty()), faulty_pairs);
    EXPECT_EQ(int64_t(run.tune().pairs_applied()), 12 - faulty_pairs);
    // The trajectory's last point is after the applied pairs only.
    EXPECT_EQ(cluster->query("SELECT max(pairs) FROM spsa_history WHERE run_id = 1"),
              12 - faulty_pairs);
    r = cluster->cli({"show", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(
        r.out.find("(" + std::to_string(faulty_pairs) + " left out: a game of theirs was faulty)"),
        std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace sparring::testing
