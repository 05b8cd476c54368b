// SPSA tuning end to end with real coordinator, worker and CLI processes on 127.0.0.1: a
// version whose knight is worth far too little (150, the registry's minimum, against about
// 300) is tuned, the knight's values move up, the trajectory is queryable, the tuned values
// become a version, and the chained verification beats the version the tuning started from.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <thread>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class TuneServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    std::unique_ptr<Cluster> cluster;
};

// Returns the number of lines of a text.
size_t line_count(const std::string& text) {
    size_t lines = 0;
    for (char c : text) lines += c == '\n';
    return lines;
}

TEST_F(TuneServiceTest, AKnightValuedFarTooLowMovesUpAndTheVerificationConfirmsIt) {
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "4"});
    cluster->add_version("weak", "KnightValueMg=150,KnightValueEg=150");
    cluster->start_worker("one", 1, {"--report-seconds", "1"});
    cluster->start_worker("two", 1, {"--report-seconds", "1"});
    // c_end 100 keeps the noise low against the signal: the perturbed knights differ by 200.
    // The tuned knights (about 270-330 / 170-215 here) gain +55..+80 Elo over 150/150 at 300
    // nodes (measured with `sparring match`, 600 games each). The verification's elo1 sits
    // well below that, with beta 0.01, so the SPRT accepts H0 only with a tiny probability
    // (with elo1 50, right at the effect, it did about once in twenty runs, as beta allows);
    // it needs about 300 games, and 1,200 leave room for the slow tail.
    const std::vector<std::string> submit = {
        "submit",  "tune",    "weak",     "--params",  "KnightValueMg,KnightValueEg",
        "--games", "800",     "--tc",     "nodes=300", "--c-end",
        "100",     "--r-end", "0.008",    "--verify",  "--verify-games",
        "1200",    "--model", "logistic", "--elo0",    "0",
        "--elo1",  "25",      "--beta",   "0.01",      "--seed",
        "7"};
    const CommandResult submitted = cluster->cli(submit);
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    EXPECT_NE(submitted.out.find("SPSA tuning of weak, 2 parameters"), std::string::npos)
        << submitted.out;

    const v1::RunStatus tuned = cluster->wait_for_run(1, 600s);
    ASSERT_EQ(tuned.state(), v1::RUN_STATE_FINISHED) << tuned.DebugString();
    ASSERT_EQ(tuned.tune().values_size(), 2);
    EXPECT_EQ(tuned.tune().pairs_applied(), 400u);
    EXPECT_EQ(tuned.games(), 800u);
    // Both values move up from 150; the middle-game one, which decides most of these short
    // games, the most.
    std::cout << "knight values after 400 pairs: " << tuned.tune().values(0) << ", "
              << tuned.tune().values(1) << "\n";
    EXPECT_GT(tuned.tune().values(0), 200) << tuned.tune().DebugString();
    EXPECT_GT(tuned.tune().values(1), 150) << tuned.tune().DebugString();
    EXPECT_GT(tuned.tune().values(0) + tuned.tune().values(1), 2 * 190);
    EXPECT_EQ(cluster->query("SELECT pairs_applied FROM spsa_values WHERE run = 1 LIMIT 1"), 400);
    EXPECT_EQ(cluster->query("SELECT max(games) FROM spsa_trajectory WHERE run = 1"), 800);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM spsa_trajectory WHERE run = 1 AND pairs = 0 "
                             "AND value = 150"),
              2);

    const CommandResult show = cluster->cli({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("tune (SPSA)"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("KnightValueMg"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("verification: run 2, weak-tuned-1 vs weak"), std::string::npos)
        << show.out;

    const CommandResult csv = cluster->cli({"tune-history", "1", "--csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
              "pairs,games,unix_ms,KnightValueMg,KnightValueEg");
    EXPECT_EQ(int64_t(line_count(csv.out)) - 1,
              cluster->query("SELECT count(*) FROM spsa_trajectory WHERE run = 1 AND "
                             "parameter = 'KnightValueMg'"));
    EXPECT_NE(csv.out.find("\n0,0,"), std::string::npos) << csv.out;

    const CommandResult added = cluster->cli({"versions", "add", "tuned", "--from-run", "1"});
    ASSERT_EQ(added.status, 0) << added.err;
    const CommandResult version = cluster->cli({"versions", "show", "tuned"});
    std::ostringstream expected;
    expected << "KnightValueMg=" << std::lround(tuned.tune().values(0));
    EXPECT_NE(version.out.find(expected.str()), std::string::npos) << version.out;

    // The verification: the tuned knight against the knight at 150, stopped by the SPRT.
    const v1::RunStatus verify = cluster->wait_for_run(2, 600s);
    ASSERT_EQ(verify.state(), v1::RUN_STATE_FINISHED) << verify.DebugString();
    EXPECT_EQ(verify.verifies_run_id(), 1);
    EXPECT_EQ(verify.spec().test_version(), "weak-tuned-1");
    EXPECT_EQ(verify.result(), "H1 accepted");
    EXPECT_GT(verify.elo_low(), 0);
    const CommandResult after = cluster->cli({"show", "1"});
    EXPECT_NE(after.out.find("H1 accepted"), std::string::npos) << after.out;
    // Stopped by its SPRT, it also reports the median-unbiased Elo (docs/statistics.md), its
    // interval around it, on GetRun (which the REST API prints) and `show`.
    ASSERT_TRUE(verify.has_elo_unbiased()) << verify.DebugString();
    EXPECT_LT(verify.elo_unbiased_low(), verify.elo_unbiased());
    EXPECT_GT(verify.elo_unbiased_high(), verify.elo_unbiased());
    EXPECT_GT(verify.elo_unbiased_high(), 0);
    const CommandResult shown = cluster->cli({"show", "2"});
    EXPECT_NE(shown.out.find("Elo unbiased"), std::string::npos) << shown.out;
}

TEST_F(TuneServiceTest, MalformedTuningSubmissionsAreRejectedWithAClearMessage) {
    cluster = std::make_unique<Cluster>();
    cluster->add_version("weak", "KnightValueMg=150");
    const CommandResult no_params = cluster->cli({"submit", "tune", "weak"});
    EXPECT_EQ(no_params.status, 2);
    EXPECT_NE(no_params.err.find("--params"), std::string::npos) << no_params.err;
    const CommandResult unknown = cluster->cli({"submit", "tune", "weak", "--params", "Knight"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("'Knight' is neither a parameter nor a group"), std::string::npos)
        << unknown.err;
    const CommandResult bad_c =
        cluster->cli({"submit", "tune", "weak", "--params", "KnightValueMg", "--c-end", "-1"});
    EXPECT_EQ(bad_c.status, 1);
    EXPECT_NE(bad_c.err.find("c_end must be positive"), std::string::npos) << bad_c.err;
    const CommandResult not_tune = cluster->cli({"show", "1"});
    EXPECT_NE(not_tune.status, 0);
    const CommandResult history = cluster->cli({"tune-history", "1"});
    EXPECT_EQ(history.status, 1);
    EXPECT_NE(history.err.find("not a tuning run"), std::string::npos) << history.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
}

}  // namespace
}  // namespace sparring::testing
