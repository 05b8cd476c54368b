// The scheduler: priority first, then throughput share, never a run the worker cannot play.
#include <gtest/gtest.h>

#include "coordinator/domain/scheduler.h"

namespace sparring::coordinator {
namespace {

RunCandidate run(int64_t id, int priority, int cores, int throughput = 100) {
    RunCandidate c;
    c.run_id = id;
    c.priority = priority;
    c.active_cores = cores;
    c.throughput = throughput;
    c.version_ids = {id * 10, id * 10 + 1};
    c.memory_mb_per_game = 32;
    return c;
}

WorkerProfile worker() {
    WorkerProfile w;
    w.concurrency = 2;
    w.memory_mb = 1024;
    return w;
}

TEST(Scheduler, NoRunsNoWork) {
    EXPECT_FALSE(choose_run({}, worker()));
}

TEST(Scheduler, HigherPriorityWinsWhateverTheLoad) {
    const std::vector<RunCandidate> runs = {run(1, 0, 0), run(2, 1, 50)};
    EXPECT_EQ(choose_run(runs, worker()), 2);
}

TEST(Scheduler, EqualPriorityGoesToTheLeastServedRun) {
    const std::vector<RunCandidate> runs = {run(1, 0, 8), run(2, 0, 4), run(3, 0, 6)};
    EXPECT_EQ(choose_run(runs, worker()), 2);
}

TEST(Scheduler, ThroughputWeightsTheShare) {
    // Run 1 asks for three times the share: 9 cores on it count like 3 on run 2.
    std::vector<RunCandidate> runs = {run(1, 0, 9, 300), run(2, 0, 4, 100)};
    EXPECT_EQ(choose_run(runs, worker()), 1);
    runs[0].active_cores = 13;
    EXPECT_EQ(choose_run(runs, worker()), 2);
}

TEST(Scheduler, TiesGoToTheOldestRun) {
    const std::vector<RunCandidate> runs = {run(7, 0, 2), run(3, 0, 2)};
    EXPECT_EQ(choose_run(runs, worker()), 3);
}

TEST(Scheduler, MissingUciEngineExcludesTheRun) {
    std::vector<RunCandidate> runs = {run(1, 5, 0), run(2, 0, 0)};
    runs[0].uci_commands = {"stockfish"};
    WorkerProfile w = worker();
    EXPECT_EQ(choose_run(runs, w), 2);
    EXPECT_NE(incapability(runs[0], w).find("stockfish"), std::string::npos);
    w.uci_engines = {"stockfish"};
    EXPECT_EQ(choose_run(runs, w), 1);
}

TEST(Scheduler, TooLittleMemoryExcludesTheRun) {
    std::vector<RunCandidate> runs = {run(1, 5, 0)};
    runs[0].memory_mb_per_game = 600;  // x concurrency 2 = 1200 MiB > 1024
    EXPECT_FALSE(choose_run(runs, worker()));
    EXPECT_NE(incapability(runs[0], worker()).find("1200"), std::string::npos);
}

TEST(Scheduler, RefusedVersionExcludesTheRun) {
    const std::vector<RunCandidate> runs = {run(1, 5, 0), run(2, 0, 0)};
    WorkerProfile w = worker();
    w.refused_versions = {11};
    EXPECT_EQ(choose_run(runs, w), 2);
}

// A run of several threads per game needs that many cores for one game, and its memory is
// counted per game the worker plays at once.
TEST(Scheduler, AGameOfSeveralThreadsNeedsAsManyCores) {
    EXPECT_EQ(games_at_once(5, 2), 2);
    EXPECT_EQ(games_at_once(1, 2), 0);
    EXPECT_EQ(games_at_once(3, 0), 3);
    RunCandidate threaded = run(1, 0, 0);
    threaded.threads = 4;
    WorkerProfile small = worker();  // 2 cores
    EXPECT_EQ(incapability(threaded, small), "has 2 cores, a game of the run needs 4");
    EXPECT_FALSE(choose_run({&threaded, 1}, small));
    WorkerProfile big = worker();
    big.concurrency = 9;
    big.memory_mb = 64;  // 32 MiB a game, two games of four threads at once
    EXPECT_EQ(incapability(threaded, big), "");
    big.memory_mb = 63;
    EXPECT_NE(incapability(threaded, big), "");
}

}  // namespace
}  // namespace sparring::coordinator
