// Engine-output checks (issue 51, part D) with real processes: a worker plays a UCI engine
// whose output fails the checks (tests/match/noisy_uci_engine.sh around Stockfish) against
// the built-in engine; the coordinator counts the warnings per run, version and check with an
// example line, and `show`, REST and the run page say so. The warnings decide no game.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";
constexpr const char* kGlaurung = "/usr/games/glaurung";

TEST(OutputWarnings, ANoisyEnginesWarningsAreCountedPerVersionAndCheckAndShown) {
    if (access(kStockfish, X_OK) != 0 || access(kGlaurung, X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's stockfish and glaurung packages");
    const std::string port_file =
        ::testing::TempDir() + "sparring-warnings-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    Cluster cluster({"--heartbeat-seconds", "1", "--pairs-per-thread", "2", "--http-listen",
                     "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);
    const std::string noisy = cluster.dir + "/noisy";
    std::ofstream(noisy) << "#!/bin/sh\nexec " << SPARRING_SOURCE_DIR
                         << "/tests/match/noisy_uci_engine.sh " << kStockfish << " null\n";
    std::filesystem::permissions(noisy, std::filesystem::perms::owner_all);
    cluster.add_version("a");
    CommandResult r = cluster.cli({"versions", "add", "noisy", "--uci", noisy});
    ASSERT_EQ(r.status, 0) << r.err;
    r = cluster.cli({"versions", "add", "glaurung", "--uci", kGlaurung});
    ASSERT_EQ(r.status, 0) << r.err;
    cluster.start_worker("one", 1, {"--uci-engines", noisy + "," + kGlaurung});

    // Quiet openings and no resignation: every game has several moves of the noisy engine (a
    // line after its last bestmove of a game is read only at its next `go`). From one of the
    // default book's wild positions a game ended after its first move (CI saw it once).
    r = cluster.cli({"submit", "noisy", "a", "--kind", "fixed", "--games", "4", "--tc",
                     "nodes=1000", "--resign", "off", "--book", write_quiet_book(cluster.dir)});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus run = cluster.wait_for_run(1, 300s);
    ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.DebugString();
    EXPECT_EQ(run.games(), 4u);

    // Every game of the noisy engine has a PV with an illegal move, an info line that cannot be
    // parsed and output after a bestmove; its first process answers `bestmove 0000` once (and
    // loses that game by the rules). The built-in engine has none.
    std::map<std::string, v1::OutputWarningCount> by_check;
    for (const v1::OutputWarningCount& w : run.output_warnings()) {
        EXPECT_EQ(w.version(), "noisy") << w.DebugString();
        EXPECT_TRUE(w.test_version());
        by_check[v1::OutputCheck_Name(w.check())] = w;
    }
    ASSERT_EQ(by_check.size(), 4u) << run.DebugString();
    const v1::OutputWarningCount& pv = by_check["OUTPUT_CHECK_PV_ILLEGAL"];
    EXPECT_EQ(pv.games(), 4u);
    EXPECT_GE(pv.count(), 8u);
    EXPECT_EQ(pv.example(), "info depth 1 score cp 0 pv a1a1");
    EXPECT_EQ(pv.go(), "go nodes 1000");
    EXPECT_LT(pv.example_game(), 4u);
    EXPECT_EQ(pv.line(), "noisy sends a PV with an illegal move under `go nodes`: 4 games");
    EXPECT_EQ(by_check["OUTPUT_CHECK_INFO_UNPARSABLE"].games(), 4u);
    EXPECT_EQ(by_check["OUTPUT_CHECK_INFO_UNPARSABLE"].example(), "info depth x");
    EXPECT_EQ(by_check["OUTPUT_CHECK_AFTER_BESTMOVE"].games(), 4u);
    EXPECT_EQ(by_check["OUTPUT_CHECK_AFTER_BESTMOVE"].example(), "info string after bestmove");
    const v1::OutputWarningCount& null = by_check["OUTPUT_CHECK_BESTMOVE_NULL"];
    EXPECT_GE(null.games(), 1u);
    EXPECT_EQ(null.example(), "bestmove 0000");
    EXPECT_EQ(cluster.query("SELECT count(*) FROM games WHERE run_id = 1 AND ending = "
                            "'illegal_move'"),
              int64_t(null.games()));
    EXPECT_EQ(cluster.query("SELECT sum(games) FROM output_warnings WHERE run_id = 1"),
              int64_t(12 + null.games()));

    // `show`, REST and the run page.
    r = cluster.cli({"show", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("engine-output warnings"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("  noisy sends info lines that cannot be parsed under `go nodes`: 4 games"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("noisy writes output after its bestmove under `go nodes`: 4 games"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("noisy answers `bestmove 0000` under `go nodes`: "), std::string::npos)
        << r.out;
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster.user_token}};
    httplib::Result rest = http.Get("/api/v1/runs/1", auth);
    ASSERT_TRUE(rest && rest->status == 200);
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    ASSERT_TRUE(json.contains("output_warnings")) << rest->body;
    bool found = false;
    for (const nlohmann::json& w : json["output_warnings"])
        if (w["check"] == "OUTPUT_CHECK_PV_ILLEGAL") {
            found = true;
            EXPECT_EQ(w["games"], "4") << w;  // uint64 is a string in proto JSON
            EXPECT_EQ(w["example"], "info depth 1 score cp 0 pv a1a1") << w;
        }
    EXPECT_TRUE(found) << rest->body;
    rest = http.Get("/runs/1", auth);
    ASSERT_TRUE(rest && rest->status == 200) << (rest ? rest->status : 0);
    EXPECT_NE(rest->body.find("Engine-output warnings"), std::string::npos);
    EXPECT_NE(rest->body.find("<code>info depth x</code> after <code>go nodes 1000</code>"),
              std::string::npos);

    // Debian's Glaurung 2.2 answers `bestmove (none)` under `go nodes`: each game it loses so
    // is warned of, and `show` says so as the issue does.
    r = cluster.cli(
        {"submit", "glaurung", "a", "--kind", "fixed", "--games", "4", "--tc", "nodes=1000"});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus glaurung = cluster.wait_for_run(2, 300s);
    ASSERT_EQ(glaurung.state(), v1::RUN_STATE_FINISHED) << glaurung.DebugString();
    const int64_t lost = cluster.query(
        "SELECT count(*) FROM games WHERE run_id = 2 AND ending = 'illegal_move' AND outcome = "
        "'loss'");
    EXPECT_GE(lost, 1);
    ASSERT_EQ(glaurung.output_warnings_size(), 1) << glaurung.DebugString();
    const v1::OutputWarningCount& none = glaurung.output_warnings(0);
    EXPECT_EQ(none.check(), v1::OUTPUT_CHECK_BESTMOVE_NONE);
    EXPECT_EQ(int64_t(none.games()), lost);
    EXPECT_EQ(none.example(), "bestmove (none)");
    r = cluster.cli({"show", "2"});
    const std::string line =
        "glaurung answers `bestmove (none)` under `go nodes`: " + std::to_string(lost) +
        (lost == 1 ? " game" : " games");
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
    if (HasFailure()) cluster.dump_logs();
    std::filesystem::remove(port_file);
}

// A report whose warnings break their bounds is refused whole with a clear error, and nothing
// of it is counted; a good one adds its warnings to the run's.
TEST(OutputWarnings, AReportWithMalformedWarningsIsRefusedAndChangesNothing) {
    Cluster cluster;
    for (const char* name : {"a", "b"})
        ASSERT_EQ(cluster.cli({"versions", "add", name, "--bench", "1"}).status, 0);
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(10);
    v1::RunStatus run;
    ASSERT_TRUE(
        cluster.users()->SubmitRun(Cluster::context(cluster.user_token).get(), submit, &run).ok());
    auto workers = cluster.workers();
    const int64_t worker = register_worker(*workers, cluster.worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster.worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const int64_t lease = work.lease().lease_id();
    const auto warning = [](v1::OutputCheck check, uint32_t count, const std::string& example) {
        v1::OutputWarning w;
        w.set_check(check);
        w.set_test_version(true);
        w.set_count(count);
        w.set_example(example);
        w.set_go("go nodes 300");
        return w;
    };
    const std::string long_line(201, 'x');
    struct Case {
        std::vector<v1::OutputWarning> warnings;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{warning(v1::OutputCheck(99), 1, "x")}, "has an unknown check 99"},
        {{warning(v1::OUTPUT_CHECK_UNSPECIFIED, 1, "x")}, "has an unknown check 0"},
        {{warning(v1::OUTPUT_CHECK_PV_ILLEGAL, 0, "x")}, "pv_illegal counts 0 lines (1 to 100000)"},
        {{warning(v1::OUTPUT_CHECK_PV_ILLEGAL, 100001, "x")},
         "pv_illegal counts 100001 lines (1 to 100000)"},
        {{warning(v1::OUTPUT_CHECK_INFO_UNPARSABLE, 1, long_line)},
         "info_unparsable has an example or go command over 200 bytes"},
        {{warning(v1::OUTPUT_CHECK_MATE_PV, 1, "x"), warning(v1::OUTPUT_CHECK_MATE_PV, 2, "y")},
         "mate_pv is there twice for the test version"},
    };
    for (const Case& c : cases) {
        v1::ReportResultsRequest request = report(worker, lease, 1, {0});
        for (const v1::OutputWarning& w : c.warnings)
            *request.mutable_pairs(0)->mutable_second()->add_output_warnings() = w;
        v1::ReportResultsResponse response;
        const grpc::Status status = workers->ReportResults(
            Cluster::context(cluster.worker_token).get(), request, &response);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message;
        EXPECT_EQ(status.error_message(), "pair 0: a game's output warning " + c.message);
    }
    EXPECT_EQ(cluster.query("SELECT count(*) FROM games"), 0);
    EXPECT_EQ(cluster.query("SELECT count(*) FROM output_warnings"), 0);

    // One of each side is fine.
    v1::ReportResultsRequest good = report(worker, lease, 1, {0});
    v1::OutputWarning base = warning(v1::OUTPUT_CHECK_MATE_PV, 3, "info score mate 1 pv e2e4");
    base.set_test_version(false);
    *good.mutable_pairs(0)->mutable_second()->add_output_warnings() = base;
    *good.mutable_pairs(0)->mutable_second()->add_output_warnings() =
        warning(v1::OUTPUT_CHECK_MATE_PV, 2, "info score mate 2 pv e2e4");
    v1::ReportResultsResponse response;
    const grpc::Status accepted =
        workers->ReportResults(Cluster::context(cluster.worker_token).get(), good, &response);
    ASSERT_TRUE(accepted.ok()) << accepted.error_message();
    EXPECT_EQ(cluster.query("SELECT count(*) FROM output_warnings WHERE games = 1"), 2);
    EXPECT_EQ(cluster.query("SELECT lines FROM output_warnings WHERE test_version = 0"), 3);
    EXPECT_EQ(cluster.query("SELECT example_game FROM output_warnings WHERE test_version = 1"), 1);
}

}  // namespace
}  // namespace sparring::testing
