// A chain of self-play training generations end to end with real processes on 127.0.0.1:
// generate -> train -> register -> verify twice, each generation starting from the version
// the previous one made, and a chain stopped by the user stopping its current run.
#include <gtest/gtest.h>

#include <thread>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class TrainingChainTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(TrainingChainTest, TwoGenerationsGenerateTrainAndVerifyInTurn) {
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "2"});
    cluster->add_version("default");
    cluster->start_worker("one", 2, {"--report-seconds", "1"});
    const CommandResult submitted = cluster->cli(
        {"submit",         "train", "--generations", "2",        "--version", "default",
         "--games",        "20",    "--nodes",       "300",      "--epochs",  "20",
         "--verify-games", "40",    "--model",       "logistic", "--elo0",    "0",
         "--elo1",         "100",   "--name",        "t"});
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    const v1::RunStatus chain = cluster->wait_for_run(1, 240s);
    ASSERT_EQ(chain.state(), v1::RUN_STATE_FINISHED) << chain.DebugString();
    EXPECT_EQ(chain.result(), "completed: 2 generations, last version t-g2");
    ASSERT_EQ(chain.chain().generations_size(), 2);
    for (int i = 0; i < 2; ++i) {
        const v1::ChainGeneration& g = chain.chain().generations(i);
        EXPECT_EQ(g.version(), i == 0 ? "default" : "t-g1");
        EXPECT_EQ(g.trained_version(), "t-g" + std::to_string(i + 1));
        EXPECT_GT(g.positions(), 0u);
        EXPECT_GT(g.final_loss(), 0);
        EXPECT_GT(g.verify_games(), 0u);
        EXPECT_LE(g.elo_low(), g.elo());
        EXPECT_LE(g.elo(), g.elo_high());
        EXPECT_TRUE(g.verify_result() == "H0 accepted" || g.verify_result() == "H1 accepted" ||
                    g.verify_result() == "maximum games reached")
            << g.verify_result();
        // Each step is a run of its own, started by the chain.
        for (int64_t child : {g.generate_run_id(), g.train_run_id(), g.verify_run_id()})
            EXPECT_EQ(cluster->query("SELECT count(*) FROM chain_generations WHERE run_id = 1 AND "
                                     "(generate_run_id = " +
                                     std::to_string(child) +
                                     " OR train_run_id = " + std::to_string(child) +
                                     " OR verify_run_id = " + std::to_string(child) + ")"),
                      1);
    }
    // Generation 2 played its own openings, with generation 1's version against itself.
    EXPECT_EQ(cluster->query("SELECT seed FROM generate_runs WHERE run_id = " +
                             std::to_string(chain.chain().generations(1).generate_run_id())),
              2);
    const CommandResult show = cluster->cli({"show", "1"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("ELO [95%]"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("t-g1"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("t-g2"), std::string::npos) << show.out;
    EXPECT_EQ(
        cluster->query("SELECT count(*) FROM chain_summary WHERE run = 1 AND elo IS NOT NULL"), 2);

    // Stopping a chain stops the run it is waiting for.
    ASSERT_EQ(cluster
                  ->cli({"submit", "train", "--generations", "3", "--version", "default", "--games",
                         "2000", "--nodes", "300"})
                  .status,
              0);
    const int64_t chain2 = cluster->query("SELECT max(id) FROM runs WHERE kind = 'chain'");
    const int64_t child = cluster->query(
        "SELECT generate_run_id FROM chain_generations WHERE "
        "run_id = " +
        std::to_string(chain2));
    // The run it waits for is under way: the worker holds a lease of it.
    wait_until(
        [&] {
            return cluster->query("SELECT count(*) FROM batches WHERE run_id = " +
                                  std::to_string(child)) > 0;
        },
        60s);
    ASSERT_EQ(cluster->cli({"stop", std::to_string(chain2)}).status, 0);
    EXPECT_EQ(
        cluster->query("SELECT state = 'stopped' FROM runs WHERE id = " + std::to_string(child)),
        1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs WHERE state = 'active'"), 0);
}

}  // namespace
}  // namespace sparring::testing
