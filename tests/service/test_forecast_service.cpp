// A forecast for every test (issue 51, part E), with a real coordinator and the CLI: an SPRT
// run in progress gives its chances, games left with a 90% range, time at its throughput and
// the error rates of stopping now, over gRPC (GetRun, ListRuns), REST, `sparring show` and
// `sparring runs`; a fixed-games run gives its games left and time. The worker is this test,
// reporting pairs of known results over gRPC, so that the counts and the timing are its own.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

// A report of pairs whose results cycle through a win and a loss, a win and a draw, a loss and
// a draw, and two draws: pair scores 1/2, 3/4, 1/4, 1/2 (the versions equal on average).
v1::ReportResultsRequest mixed_report(int64_t worker, int64_t lease, uint32_t sequence,
                                      uint32_t first, uint32_t count) {
    static const v1::GameOutcome kOutcomes[4][2] = {{v1::GAME_OUTCOME_WIN, v1::GAME_OUTCOME_LOSS},
                                                    {v1::GAME_OUTCOME_WIN, v1::GAME_OUTCOME_DRAW},
                                                    {v1::GAME_OUTCOME_LOSS, v1::GAME_OUTCOME_DRAW},
                                                    {v1::GAME_OUTCOME_DRAW, v1::GAME_OUTCOME_DRAW}};
    v1::ReportResultsRequest r = report(worker, lease, sequence, {});
    for (uint32_t i = first; i < first + count; ++i) {
        v1::GamePair* p = r.add_pairs();
        p->set_index(i);
        for (int g = 0; g < 2; ++g) {
            v1::Game* game = g == 0 ? p->mutable_first() : p->mutable_second();
            game->set_outcome(kOutcomes[i % 4][g]);
            game->set_test_white(g == 0);
            const v1::GameOutcome outcome = kOutcomes[i % 4][g];
            // The result as white saw it.
            const bool white_won = (outcome == v1::GAME_OUTCOME_WIN) == (g == 0);
            const std::string result = outcome == v1::GAME_OUTCOME_DRAW ? "1/2-1/2"
                                       : white_won                      ? "1-0"
                                                                        : "0-1";
            game->set_pgn("[Result \"" + result + "\"]\n\n" + result + "\n");
        }
    }
    return r;
}

class ForecastServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        if (!port_file.empty()) std::filesystem::remove(port_file);
    }
    std::unique_ptr<Cluster> cluster;
    std::string port_file;
};

TEST_F(ForecastServiceTest, AnSprtRunInProgressSaysHowAndWhenItWillEnd) {
    port_file = ::testing::TempDir() + "sparring-forecast-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--pairs-per-thread", "64", "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);
    for (const char* name : {"a", "b"}) {
        const CommandResult r = cluster->cli({"versions", "add", name, "--bench", "1"});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(4000);
    submit.mutable_spec()->set_kind(v1::RUN_KIND_REGRESSION);
    v1::Sprt& sprt = *submit.mutable_spec()->mutable_sprt();
    sprt.set_elo0(0);
    sprt.set_elo1(10);
    sprt.set_alpha(0.05);
    sprt.set_beta(0.05);
    sprt.set_model(v1::SPRT_MODEL_LOGISTIC);
    v1::RunStatus run;
    const grpc::Status submitted =
        cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
    ASSERT_TRUE(submitted.ok()) << submitted.error_message();
    // No games yet: the run's total and no time.
    v1::RunStatus shown = cluster->get_run(run.id());
    ASSERT_TRUE(shown.has_forecast()) << shown.DebugString();
    EXPECT_EQ(shown.forecast().games_total(), 4000u);
    EXPECT_EQ(shown.forecast().eta_seconds(), 0);
    EXPECT_TRUE(shown.forecast().stop_accepts().empty());

    auto stub = cluster->workers();
    const int64_t worker = register_worker(*stub, cluster->worker_token);
    ASSERT_NE(worker, 0);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const int64_t lease = work.lease().lease_id();
    ASSERT_GE(work.lease().openings_size(), 64);
    // 64 pairs in 8 reports of 8, over more than a second.
    for (uint32_t report = 0; report < 8; ++report) {
        v1::ReportResultsResponse ack;
        const grpc::Status status =
            stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                mixed_report(worker, lease, report + 1, 8 * report, 8), &ack);
        ASSERT_TRUE(status.ok()) << status.error_message();
        std::this_thread::sleep_for(200ms);  // a throughput needs a second at least
    }

    shown = cluster->get_run(run.id());
    ASSERT_EQ(shown.games(), 128u);
    ASSERT_TRUE(shown.has_forecast());
    const v1::Forecast& f = shown.forecast();
    EXPECT_TRUE(f.sprt());
    EXPECT_NEAR(f.p_h1() + f.p_h0() + f.p_undecided(), 1, 1e-6);
    EXPECT_GT(f.p_h1(), 0.05);  // equal versions, 64 pairs: far from decided
    EXPECT_GT(f.p_h0(), 0.05);
    EXPECT_EQ(f.pairs_per_report(), 8);
    EXPECT_GT(f.games_per_second(), 0);
    EXPECT_GT(f.games_left(), 0);
    EXPECT_LE(f.games_left(), 4000 - 128);
    EXPECT_LE(f.games_left_low(), f.games_left_median());
    EXPECT_LE(f.games_left_median(), f.games_left_high());
    EXPECT_NEAR(f.eta_seconds(), f.games_left() / f.games_per_second(), 1e-6 * f.eta_seconds());
    EXPECT_TRUE(f.stop_accepts() == "H1" || f.stop_accepts() == "H0") << f.stop_accepts();
    EXPECT_GT(f.stop_alpha() + f.stop_beta(), 0.1);  // far worse than the test's 5% and 5%

    // ListRuns carries it too, and so does REST.
    v1::ListRunsRequest list;
    v1::ListRunsResponse runs;
    ASSERT_TRUE(
        cluster->users()->ListRuns(Cluster::context(cluster->user_token).get(), list, &runs).ok());
    ASSERT_EQ(runs.runs_size(), 1);
    EXPECT_EQ(runs.runs(0).forecast().p_h1(), f.p_h1());
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster->user_token}};
    const httplib::Result rest = http.Get("/api/v1/runs/" + std::to_string(run.id()), auth);
    ASSERT_TRUE(rest && rest->status == 200);
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    ASSERT_TRUE(json.contains("forecast")) << rest->body;
    EXPECT_NEAR(json["forecast"]["p_h1"].get<double>(), f.p_h1(), 1e-9);
    EXPECT_EQ(json["forecast"]["stop_accepts"], f.stop_accepts());

    // The CLI: `show` gives the forecast's rows, `runs` the ETA.
    CommandResult r = cluster->cli({"show", std::to_string(run.id())});
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* row : {"Forecast:      H1 ", "Games left:    ~", "ETA:           ~",
                            "Stopping now:  would accept H"})
        EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
    r = cluster->cli({"runs"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(" ETA "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" ~"), std::string::npos) << r.out;

    // Stopped, it has no forecast any more.
    v1::StopRunRequest stop;
    stop.set_run_id(run.id());
    ASSERT_TRUE(
        cluster->users()->StopRun(Cluster::context(cluster->user_token).get(), stop, &shown).ok());
    EXPECT_FALSE(cluster->get_run(run.id()).has_forecast());
}

}  // namespace
}  // namespace sparring::testing
