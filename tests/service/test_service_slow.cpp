// The service end to end, with games played by real workers: a fixed-games run, an SPRT run
// that accepts H1, and faults — a worker killed mid-batch, a coordinator killed and restarted
// mid-run, a worker stopped with SIGTERM. Each takes from seconds to a minute or two.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include "cluster.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class SlowServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Submits a fixed-games run of a against b through the CLI.
    void submit_fixed(int games, const std::string& tc = "nodes=300") {
        const CommandResult r = cluster->cli(
            {"submit", "a", "b", "--kind", "fixed", "--games", std::to_string(games), "--tc", tc});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    // Checks that run 1 counted exactly `games` games, each once, and that the summaries agree.
    void expect_exactly(int games) {
        EXPECT_EQ(cluster->query("SELECT 2 * pairs_done FROM runs WHERE id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT count(DISTINCT game) FROM games WHERE game < " +
                                 std::to_string(games)),
                  games);
        EXPECT_EQ(cluster->query("SELECT 2 * sum(pairs) FROM results WHERE run_id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT wins + draws + losses FROM runs WHERE id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT ll + ld + dd_wl + wd + ww FROM runs WHERE id = 1"),
                  games / 2);
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(SlowServiceTest, FixedGamesRunPlaysExactlyItsGames) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--lease-seconds", "10", "--pairs-per-thread", "2"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    cluster->start_worker("one", 2);
    cluster->start_worker("two", 1);
    submit_fixed(14);
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(run.result(), "completed");
    EXPECT_EQ(run.games(), 14u);
    expect_exactly(14);
    EXPECT_EQ(cluster->query("SELECT games FROM run_summary WHERE run = 1"), 14);
    EXPECT_EQ(cluster->query("SELECT sum(games) FROM worker_contribution WHERE run = 1"), 14);

    const CommandResult pgn = cluster->cli({"export", "1"});
    ASSERT_EQ(pgn.status, 0) << pgn.err;
    size_t events = 0;
    for (size_t at = pgn.out.find("[Event "); at != std::string::npos;
         at = pgn.out.find("[Event ", at + 1))
        ++events;
    EXPECT_EQ(events, 14u);
    const CommandResult show = cluster->cli({"show", "1"});
    EXPECT_NE(show.out.find("completed"), std::string::npos) << show.out;
    const CommandResult workers = cluster->cli({"workers"});
    EXPECT_NE(workers.out.find("one"), std::string::npos) << workers.out;
    EXPECT_NE(workers.out.find("two"), std::string::npos) << workers.out;
}

TEST_F(SlowServiceTest, SprtRunAgainstAWeakenedVersionAcceptsH1) {
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "2"});
    cluster->add_version("strong");
    cluster->add_version("weak",
                         "QueenValueMg=500,QueenValueEg=500,KnightValueMg=150,KnightValueEg=150");
    cluster->start_worker("one", 1);
    cluster->start_worker("two", 1);
    const CommandResult r =
        cluster->cli({"submit", "strong", "weak", "--games", "600", "--tc", "nodes=500", "--model",
                      "logistic", "--elo0", "0", "--elo1", "100"});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus run = cluster->wait_for_run(1, 600s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.DebugString();
    EXPECT_EQ(run.result(), "H1 accepted");
    EXPECT_GE(run.llr(), run.llr_upper());
    EXPECT_LT(run.games(), 600u);
    EXPECT_GT(run.elo_low(), 0);
    const CommandResult runs = cluster->cli({"runs"});
    EXPECT_NE(runs.out.find("H1 accepted"), std::string::npos) << runs.out;
    // The workers are told to stop: no lease stays active on the finished run.
    EXPECT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM active_leases") == 0; }, 30s));
}

TEST_F(SlowServiceTest, WorkerKilledMidBatchLosesNothing) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--lease-seconds", "3", "--pairs-per-thread", "16"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    submit_fixed(80, "nodes=2000");
    Process& victim = cluster->start_worker("victim", 2, {"--report-seconds", "1"});
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 180s));
    ASSERT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'leased'"), 1);
    victim.signal(SIGKILL);
    ASSERT_EQ(victim.wait_exit(10s), 128 + SIGKILL);
    const int64_t counted = cluster->query("SELECT pairs_done FROM runs");
    cluster->start_worker("rescuer", 2);
    const v1::RunStatus run = cluster->wait_for_run(1, 600s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    expect_exactly(80);
    EXPECT_GE(cluster->query("SELECT count(*) FROM batches WHERE state = 'expired'"), 1);
    EXPECT_EQ(cluster->query("SELECT sum(pairs) FROM results WHERE worker_id = 1"), counted);
}

TEST_F(SlowServiceTest, CoordinatorKilledAndRestartedLosesNoAcknowledgedResult) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--lease-seconds", "20", "--pairs-per-thread", "2"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    submit_fixed(40);

    // A client of our own takes the first lease and has its report acknowledged.
    auto stub = cluster->workers();
    const int64_t own = register_worker(*stub, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, own, &work).ok());
    ASSERT_EQ(work.lease().openings_size(), 2);
    v1::ReportResultsResponse ack;
    ASSERT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                    report(own, work.lease().lease_id(), 1, {0, 1}), &ack)
                    .ok());

    cluster->start_worker("one", 1, {"--report-seconds", "1"});
    cluster->start_worker("two", 1, {"--report-seconds", "1"});
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") >= 3; }, 180s));
    cluster->stop_coordinator(SIGKILL);
    const int64_t committed = cluster->query("SELECT pairs_done FROM runs");
    // An outage that must last: workers find the coordinator gone and retry (no single log line
    // marks a worker that is between reports and one that is waiting for work).
    std::this_thread::sleep_for(2s);
    cluster->start_coordinator();

    // The acknowledged report survived; a retry of it is recognised, not counted again.
    stub = cluster->workers();  // a fresh channel, not one in reconnection backoff
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE batch_id = " +
                             std::to_string(work.lease().lease_id())),
              4);
    ack.Clear();
    ASSERT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                    report(own, work.lease().lease_id(), 1, {0, 1}), &ack)
                    .ok());
    EXPECT_TRUE(ack.duplicate());
    EXPECT_GE(cluster->query("SELECT pairs_done FROM runs"), committed);

    const v1::RunStatus run = cluster->wait_for_run(1, 600s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    expect_exactly(40);
    EXPECT_EQ(cluster->query("SELECT wins FROM runs") >= 2, true);
}

TEST_F(SlowServiceTest, SigtermHandsTheBatchBack) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--lease-seconds", "120", "--pairs-per-thread", "40"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    submit_fixed(100, "nodes=2000");
    Process& leaving = cluster->start_worker("leaving", 1, {"--report-seconds", "1"});
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 180s));
    leaving.signal(SIGTERM);
    ASSERT_EQ(leaving.wait_exit(60s), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'released'"), 1);
    EXPECT_GT(cluster->query("SELECT free_pairs FROM runs"), 0);

    // The returned pairs are played without waiting for the 120-second lease to expire.
    cluster->start_worker("staying", 2);
    const v1::RunStatus run = cluster->wait_for_run(1, 600s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    expect_exactly(100);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'expired'"), 0);
}

TEST_F(SlowServiceTest, UciRunsGoOnlyToWorkersWithTheEngine) {
    const std::string stockfish = "/usr/games/stockfish";
    if (access(stockfish.c_str(), X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1"});
    cluster->add_version("a");
    const CommandResult sf =
        cluster->cli({"versions", "add", "b", "--uci", stockfish, "--option", "Hash=16"});
    ASSERT_EQ(sf.status, 0) << sf.err;
    submit_fixed(6);
    cluster->start_worker("plain", 1);
    cluster->start_worker("equipped", 1, {"--uci-engines", stockfish});
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    expect_exactly(6);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers WHERE name = 'plain' AND games = 0"), 1);
    EXPECT_EQ(cluster->query("SELECT games FROM workers WHERE name = 'equipped'"), 6);
}

// Counts the games of a PGN export whose text holds `what`.
size_t count_in(const std::string& pgn, const std::string& what) {
    size_t count = 0;
    for (size_t at = pgn.find(what); at != std::string::npos; at = pgn.find(what, at + 1)) ++count;
    return count;
}

TEST_F(SlowServiceTest, ServiceGamesEndByTheRunsAdjudicationWithBuiltInAndUciEngines) {
    const std::string stockfish = "/usr/games/stockfish";
    if (access(stockfish.c_str(), X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "2"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    const CommandResult sf =
        cluster->cli({"versions", "add", "sf", "--uci", stockfish, "--option", "Hash=16"});
    ASSERT_EQ(sf.status, 0) << sf.err;
    cluster->start_worker("one", 2, {"--uci-engines", stockfish});

    // Run 1, built-in engines: a draw rule every game meets at move 8 (both scores within
    // +-100000 for one move each), resignation off.
    CommandResult r = cluster->cli({"submit", "a", "b", "--kind", "fixed", "--games", "4", "--tc",
                                    "nodes=300", "--draw", "movenumber=8,movecount=1,score=100000",
                                    "--resign", "off", "--book-order", "sequential"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(1, 300s).state(), v1::RUN_STATE_FINISHED);
    CommandResult pgn = cluster->cli({"export", "1"});
    ASSERT_EQ(pgn.status, 0) << pgn.err;
    EXPECT_EQ(count_in(pgn.out, "[Termination \"adjudication\"]"), 4u) << pgn.out;
    EXPECT_EQ(count_in(pgn.out, "{Draw by adjudication}"), 4u) << pgn.out;
    const CommandResult show = cluster->cli({"show", "1"});
    EXPECT_NE(show.out.find("adjudication:"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("draw movenumber=8 movecount=1 score=100000; resign off; no length "
                            "limit"),
              std::string::npos)
        << show.out;

    // Run 2, no score rule but a length limit: every game is a draw at 12 plies. The book's
    // first openings, in order: a random one may lead to a mate within 12 plies.
    r = cluster->cli({"submit", "a", "b", "--kind", "fixed", "--games", "4", "--tc", "nodes=300",
                      "--draw", "off", "--resign", "off", "--maxplies", "12", "--book-order",
                      "sequential"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(2, 300s).state(), v1::RUN_STATE_FINISHED);
    pgn = cluster->cli({"export", "2"});
    EXPECT_EQ(count_in(pgn.out, "{Draw by maximum game length}"), 4u) << pgn.out;
    EXPECT_EQ(cluster->query("SELECT draws FROM runs WHERE id = 2"), 4);

    // Run 3, Stockfish against the built-in engine: Stockfish's scores are read from its info
    // lines, so the same kind of draw rule ends every game at move 8. The book's first opening:
    // a random one may lead to a mate before move 8 (one did, in a fresh Debian's run).
    r = cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "2", "--tc", "nodes=2000",
                      "--draw", "movenumber=8,movecount=1,score=100000", "--resign", "off",
                      "--book-order", "sequential"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(3, 300s).state(), v1::RUN_STATE_FINISHED);
    pgn = cluster->cli({"export", "3"});
    EXPECT_EQ(count_in(pgn.out, "{Draw by adjudication}"), 2u) << pgn.out;

    // A bad rule is refused with the parser's reason and stores nothing.
    r = cluster->cli({"submit", "a", "b", "--draw", "movecount=8"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("bad draw adjudication 'movecount=8': missing score=N"), std::string::npos)
        << r.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 3);
}

// A run of two threads per engine: Stockfish is told Threads 2 whatever its version says, a
// worker of two cores plays one game at a time and its lease holds two cores, a worker of one
// core gets none of it; two built-in versions take no threads.
TEST_F(SlowServiceTest, AThreadedRunSetsTheEnginesThreadsAndLeasesCoresNotGames) {
    const std::string stockfish = "/usr/games/stockfish";
    if (access(stockfish.c_str(), X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1"});
    const std::string log = cluster->dir + "/stockfish-input.log";
    const std::string wrapper = cluster->dir + "/stockfish-logged";
    std::ofstream(wrapper) << "#!/bin/sh\ntee -a " << log << " | " << stockfish << "\n";
    std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
    cluster->add_version("a");
    const CommandResult sf =
        cluster->cli({"versions", "add", "sf", "--uci", wrapper, "--option", "Hash=16"});
    ASSERT_EQ(sf.status, 0) << sf.err;
    cluster->start_worker("small", 1, {"--uci-engines", wrapper});
    cluster->start_worker("big", 2, {"--uci-engines", wrapper});
    CommandResult r = cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "4", "--tc",
                                    "nodes=2000", "--engine-threads", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(1, 300s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(cluster->query("SELECT games FROM workers WHERE name = 'big'"), 4);
    EXPECT_EQ(cluster->query("SELECT games FROM workers WHERE name = 'small'"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches b JOIN workers w ON w.id = b.worker_id "
                             "WHERE w.name = 'small'"),
              0);
    EXPECT_EQ(cluster->query("SELECT min(cores) FROM batches WHERE run_id = 1"), 2);
    EXPECT_EQ(cluster->query("SELECT max(cores) FROM batches WHERE run_id = 1"), 2);
    std::ifstream in(log);
    const std::string sent((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(sent.find("setoption name Threads value 2"), std::string::npos) << sent;
    EXPECT_EQ(sent.find("setoption name Threads value 1"), std::string::npos) << sent;
    const CommandResult show = cluster->cli({"show", "1"});
    EXPECT_NE(show.out.find("2 per UCI engine"), std::string::npos) << show.out;

    r = cluster->cli({"submit", "a", "a", "--engine-threads", "2"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("both versions are the built-in engine, which searches with one thread"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 1);
}

// Games lost by an engine's fault are counted per worker and per version at fault, and shown:
// a UCI engine that thinks past its clock loses every game on time, one that dies at its
// first move loses every game by a crash (tests/match/fake_uci_engine.sh).
TEST_F(SlowServiceTest, TimeLossesAndCrashesAreCountedPerWorkerAndVersion) {
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "2"});
    const std::string fake = std::string(SPARRING_SOURCE_DIR) + "/tests/match/fake_uci_engine.sh";
    const auto wrapper = [&](const std::string& mode) {
        const std::string path = cluster->dir + "/fake-" + mode;
        std::ofstream(path) << "#!/bin/sh\nexec " << fake << " " << mode << "\n";
        std::filesystem::permissions(path, std::filesystem::perms::owner_all);
        return path;
    };
    const std::string slow = wrapper("slow");
    const std::string crash = wrapper("crash");
    cluster->add_version("a");
    for (const auto& [name, command] : {std::pair{"slow", slow}, std::pair{"crashy", crash}}) {
        const CommandResult added = cluster->cli({"versions", "add", name, "--uci", command});
        ASSERT_EQ(added.status, 0) << added.err;
    }
    cluster->start_worker("one", 1, {"--uci-engines", slow + "," + crash});

    // The slow engine answers after 0.3 s on a clock of 0.1 s: every game lost on time.
    CommandResult r =
        cluster->cli({"submit", "slow", "a", "--kind", "fixed", "--games", "4", "--tc", "0.1+0"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(1, 300s).state(), v1::RUN_STATE_FINISHED);
    r = cluster->cli(
        {"submit", "crashy", "a", "--kind", "fixed", "--games", "2", "--tc", "nodes=100"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(cluster->wait_for_run(2, 300s).state(), v1::RUN_STATE_FINISHED);

    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1 AND ending = "
                             "'time_loss' AND outcome = 'loss'"),
              4);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 2 AND ending = 'crash' "
                             "AND outcome = 'loss'"),
              2);
    const v1::RunStatus first = cluster->wait_for_run(1, 10s);
    ASSERT_EQ(first.faults_size(), 1) << first.DebugString();
    EXPECT_EQ(first.faults(0).version(), "slow");
    EXPECT_EQ(first.faults(0).fault(), v1::GAME_ENDING_TIME_LOSS);
    EXPECT_EQ(first.faults(0).games(), 4u);
    EXPECT_EQ(first.faults(0).worker_name(), "one");
    ASSERT_EQ(first.workers_size(), 1);
    EXPECT_EQ(first.workers(0).time_losses(), 4u);

    const CommandResult show = cluster->cli({"show", "2"});
    const size_t faults = show.out.find("games lost by faults:");
    ASSERT_NE(faults, std::string::npos) << show.out;
    const std::string row = show.out.substr(show.out.find("crashy", faults));
    EXPECT_EQ(row.substr(0, row.find('\n')).find(" crash "), row.find(" crash ")) << show.out;
    EXPECT_NE(row.substr(0, row.find('\n')).find(" 1 one "), std::string::npos) << show.out;
}

}  // namespace
}  // namespace sparring::testing
