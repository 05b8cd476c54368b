// Why a run waits (issue 51, part A), with real processes: runs that need an engine, a thread
// count and a reference speed no connected worker offers say so, counted over the workers, in
// `submit`, `show`, `runs`, `workers`, REST, gRPC and the metrics; a worker that can play them
// arrives and serves them, and their reasons are gone.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster.h"
#include "needs.h"
#include "wait.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kGlaurung = "/usr/games/glaurung";
constexpr const char* kStockfish = "/usr/games/stockfish";

class WaitingTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kGlaurung, X_OK) != 0 || access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's glaurung and stockfish packages");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        if (!port_file.empty()) std::filesystem::remove(port_file);
    }

    // Returns a run over gRPC.
    v1::RunStatus get(int64_t id) const {
        v1::RunStatus run = cluster->get_run(id);
        EXPECT_EQ(run.id(), id) << "GetRun failed";
        return run;
    }

    // Returns the reason names of a run over gRPC, joined with commas.
    std::string reasons(int64_t id) const {
        std::string out;
        const v1::RunStatus run = get(id);
        for (const v1::WaitingReason& r : run.waiting())
            out += (out.empty() ? "" : ",") + r.reason();
        return out;
    }

    std::unique_ptr<Cluster> cluster;
    std::string port_file;
};

TEST_F(WaitingTest, RunsSayWhatNoWorkerOffersAndAreServedWhenAWorkerCanPlayThem) {
    port_file = ::testing::TempDir() + "sparring-waiting-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1",
                                 "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);
    cluster->add_version("a");
    for (const auto& [name, command] : {std::pair{"glaurung", kGlaurung}, {"sf", kStockfish}}) {
        const CommandResult added =
            cluster->cli({"versions", "add", name, "--uci", command, "--option", "Hash=16"});
        ASSERT_EQ(added.status, 0) << added.err;
    }

    // No worker at all: submit warns at once, and submits all the same.
    CommandResult r = cluster->cli(
        {"submit", "glaurung", "a", "--kind", "fixed", "--games", "2", "--tc", "2+0.05"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: no connected worker can play run 1 (0 workers connected)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("no connected worker (start one"), std::string::npos) << r.err;
    EXPECT_EQ(reasons(1), "no_workers");

    // A worker with Stockfish alone, one core.
    cluster->start_worker("small", 1, {"--uci-engines", kStockfish});
    ASSERT_TRUE(wait_until([&] { return reasons(1) == "no_engine"; }, 30s)) << reasons(1);
    // A run of two threads a game, and one whose reference speed no machine reaches.
    r = cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "2", "--tc", "2+0.05",
                      "--engine-threads", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: no connected worker can play run 2 (1 worker connected)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the only worker: fewer than 2 cores (start one with `--concurrency 2` "
                         "or more)"),
              std::string::npos)
        << r.err;
    r = cluster->cli({"submit", "sf", "a", "--kind", "fixed", "--games", "2", "--tc", "10+0.1",
                      "--reference-nps", "1000000000000"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << "small may play it: " << r.err;
    // small takes it, measures its speed, hands it back, and is leased none of it again.
    ASSERT_TRUE(wait_until([&] { return reasons(3) == "too_slow"; }, 120s)) << reasons(3);

    // gRPC: each reason with its count, the run's side and the fix.
    const v1::RunStatus one = get(1);
    ASSERT_EQ(one.waiting_size(), 1) << one.DebugString();
    EXPECT_EQ(one.waiting(0).workers(), 1u);
    EXPECT_EQ(one.waiting(0).text(), "no /usr/games/glaurung");
    EXPECT_EQ(one.waiting(0).fix(), "start one with `--uci-engines /usr/games/glaurung`");
    EXPECT_EQ(one.connected_workers(), 1u);
    EXPECT_TRUE(one.unplayable());
    EXPECT_EQ(get(2).waiting(0).reason(), "cores");
    EXPECT_EQ(get(3).waiting(0).text(),
              "too slow for the run's reference speed of "
              "1000000000000 nodes/s");

    // show, runs and workers.
    r = cluster->cli({"show", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("waiting:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no connected worker offers /usr/games/glaurung (1 worker; start one "
                         "with `--uci-engines /usr/games/glaurung`)"),
              std::string::npos)
        << r.out;
    r = cluster->cli({"show", "3"});
    EXPECT_NE(r.out.find("the only worker: too slow for the run's reference speed"),
              std::string::npos)
        << r.out;
    r = cluster->cli({"runs"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_in_text(r.out, " waiting "), 3u) << r.out;
    EXPECT_NE(r.out.find("waiting: run 2: the only worker: fewer than 2 cores"), std::string::npos)
        << r.out;
    r = cluster->cli({"workers"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("declined runs:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("lacks the UCI engine '/usr/games/glaurung'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("has 1 cores, a game of the run needs 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("too slow for the run: "), std::string::npos) << r.out;

    // REST, the pages and the metrics.
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster->user_token}};
    httplib::Result rest = http.Get("/api/v1/runs/1", auth);
    ASSERT_TRUE(rest && rest->status == 200);
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    ASSERT_TRUE(json.contains("waiting")) << rest->body;
    EXPECT_EQ(json["waiting"][0]["reason"], "no_engine") << rest->body;
    EXPECT_EQ(json["waiting"][0]["workers"], 1) << rest->body;
    EXPECT_EQ(json["unplayable"], true) << rest->body;
    rest = http.Get("/metrics");
    ASSERT_TRUE(rest && rest->status == 200);
    EXPECT_NE(rest->body.find("sparring_runs_waiting{reason=\"no_engine\"} 1"), std::string::npos)
        << rest->body;
    EXPECT_NE(rest->body.find("sparring_runs_waiting{reason=\"cores\"} 1"), std::string::npos);
    EXPECT_NE(rest->body.find("sparring_runs_waiting{reason=\"too_slow\"} 1"), std::string::npos);
    EXPECT_NE(rest->body.find("sparring_runs_waiting{reason=\"memory\"} 0"), std::string::npos);

    // A worker with both engines and two cores: runs 1 and 2 are served and end; run 3 still
    // waits, now for both workers' speed.
    cluster->start_worker("big", 2, {"--uci-engines", std::string(kGlaurung) + "," + kStockfish});
    for (int64_t id : {1, 2}) {
        const v1::RunStatus done = cluster->wait_for_run(id, 300s);
        EXPECT_EQ(done.state(), v1::RUN_STATE_FINISHED) << done.DebugString();
        EXPECT_EQ(done.games(), 2u);
        EXPECT_EQ(done.waiting_size(), 0) << done.DebugString();
    }
    ASSERT_TRUE(wait_until(
        [&] {
            const v1::RunStatus three = get(3);
            return three.waiting_size() == 1 && three.waiting(0).workers() == 2;
        },
        120s))
        << get(3).DebugString();
    r = cluster->cli({"show", "3"});
    EXPECT_NE(r.out.find("all 2 workers: too slow"), std::string::npos) << r.out;
    r = cluster->cli({"stop", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(get(3).waiting_size(), 0);
}

}  // namespace
}  // namespace sparring::testing
