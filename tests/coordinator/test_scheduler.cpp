// The scheduler: priority first, then throughput share, never a run the worker cannot play.
#include <gtest/gtest.h>

#include <random>

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

// The pool serves its runs in choose_run's order as they are put, replaced and removed: the
// first it gives a worker is the run choose_run picks among the same runs.
TEST(Scheduler, TheCandidatePoolServesInChooseRunsOrder) {
    std::mt19937 random(7);
    std::vector<RunCandidate> runs;
    CandidatePool pool;
    bool all = false;
    EXPECT_TRUE(pool.take_touched(&all).empty());
    EXPECT_TRUE(all);  // the first time: every active run is read
    for (int64_t id = 1; id <= 300; ++id) {
        RunCandidate c = run(id, int(random() % 3), int(random() % 20), 50 + int(random() % 200));
        c.memory_mb_per_game = random() % 4 == 0 ? 600 : 32;  // some need too much memory
        runs.push_back(c);
        pool.put(c);
    }
    const auto pool_choice = [&](const WorkerProfile& w) {
        return pool.first([&](const RunCandidate& c) { return incapability(c, w).empty(); });
    };
    for (int round = 0; round < 200; ++round) {
        ASSERT_EQ(pool.size(), runs.size());
        ASSERT_EQ(pool_choice(worker()), choose_run(runs, worker())) << round;
        // A lease on the chosen run, another ending elsewhere, a priority changed, a run ended.
        const std::optional<int64_t> chosen = choose_run(runs, worker());
        ASSERT_TRUE(chosen);
        for (RunCandidate& c : runs)
            if (c.run_id == *chosen) {
                c.active_cores += 2;
                pool.put(c);
            }
        RunCandidate& other = runs[random() % runs.size()];
        other.active_cores = std::max(0, other.active_cores - 2);
        other.priority = int(random() % 3);
        pool.put(other);
        if (round % 10 == 0) {
            const size_t gone = random() % runs.size();
            pool.remove(runs[gone].run_id);
            runs.erase(runs.begin() + std::ptrdiff_t(gone));
        }
    }
    // Touched runs are handed out once.
    pool.touch(4);
    pool.touch(4);
    pool.touch(9);
    std::vector<int64_t> touched = pool.take_touched(&all);
    std::sort(touched.begin(), touched.end());
    EXPECT_FALSE(all);
    EXPECT_EQ(touched, (std::vector<int64_t>{4, 9}));
    EXPECT_TRUE(pool.take_touched(&all).empty());
}

}  // namespace
}  // namespace sparring::coordinator
