// The scheduler: priority first, then an equal share per user, then throughput share within a
// user, never a run the worker cannot play.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "coordinator/domain/scheduler.h"

namespace sparring::coordinator {
namespace {

RunCandidate run(int64_t id, int priority, int cores, int throughput = 100,
                 std::string owner = "alice") {
    RunCandidate c;
    c.run_id = id;
    c.owner = std::move(owner);
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

// Fair share (issue 52): among equal priorities the user with the fewest cores at work is served
// first, however many runs each has; within a user, the run with the fewest cores per throughput.
TEST(Scheduler, EqualPrioritiesShareTheCoresPerUserFirst) {
    // Bob has two runs of 4 cores each: 8 in all. Alice's one run has 6: fewer, so hers, though
    // each of Bob's runs has fewer cores than it.
    std::vector<RunCandidate> runs = {run(1, 0, 6, 100, "alice"), run(2, 0, 4, 100, "bob"),
                                      run(3, 0, 4, 100, "bob")};
    EXPECT_EQ(choose_run(runs, worker()), 1);
    EXPECT_EQ(owner_shares(runs).at({0, "bob"}).cores, 8);
    // Alice at 8 too: a tie between users goes to the one served fewer pairs so far, then by
    // name; at 10 Bob's least served run.
    runs[0].active_cores = 8;
    EXPECT_EQ(choose_run(runs, worker()), 1);
    runs[0].served_pairs = 30;
    runs[1].served_pairs = runs[2].served_pairs = 10;
    EXPECT_EQ(choose_run(runs, worker()), 2);  // Bob's 20 pairs; his older run of 4 cores
    runs[2].served_pairs = 25;
    EXPECT_EQ(choose_run(runs, worker()), 1);  // Bob's 35
    runs[0].active_cores = 10;
    EXPECT_EQ(choose_run(runs, worker()), 2);
    runs[1].active_cores = 5;
    EXPECT_EQ(choose_run(runs, worker()), 3);
}

TEST(Scheduler, PriorityStillComesBeforeTheUsersShare) {
    const std::vector<RunCandidate> runs = {run(1, 0, 0, 100, "alice"), run(2, 1, 40, 100, "bob")};
    EXPECT_EQ(choose_run(runs, worker()), 2);
    // The cores of a user's runs of another priority do not count to the share at this one.
    const std::vector<RunCandidate> mixed = {run(1, 0, 2, 100, "alice"), run(2, 0, 0, 100, "bob"),
                                             run(3, 5, 40, 100, "bob")};
    EXPECT_EQ(choose_run(mixed, worker()), 3);
    WorkerProfile w = worker();
    w.refused_versions = {30};  // cannot play run 3
    EXPECT_EQ(choose_run(mixed, w), 2);
}

TEST(Scheduler, ThroughputSharesAUsersCoresAmongItsRuns) {
    // Alice's run 1 asks for three times the share of her run 2: 9 cores on it count like 3.
    std::vector<RunCandidate> runs = {run(1, 0, 9, 300, "alice"), run(2, 0, 4, 100, "alice"),
                                      run(3, 0, 14, 100, "bob")};
    EXPECT_EQ(choose_run(runs, worker()), 1);
    runs[0].active_cores = 13;  // Alice 17 > Bob 14: Bob's run now
    EXPECT_EQ(choose_run(runs, worker()), 3);
    runs[2].active_cores = 18;
    EXPECT_EQ(choose_run(runs, worker()), 2);
}

// A run with all its pairs out is never chosen, but its cores count to its owner.
TEST(Scheduler, ARunWithNothingToLeaseStillCountsItsCores) {
    std::vector<RunCandidate> runs = {run(1, 0, 12, 100, "alice"), run(2, 0, 0, 100, "alice"),
                                      run(3, 0, 4, 100, "bob")};
    runs[0].leasable = false;
    EXPECT_EQ(choose_run(runs, worker()), 3);
    runs[0].active_cores = 2;
    EXPECT_EQ(choose_run(runs, worker()), 2);
    runs[1].leasable = false;
    EXPECT_EQ(choose_run(runs, worker()), 3);
}

// Played out: three users with 1, 2 and 4 runs and workers of 2 cores taking leases one after
// the other get 6 cores each of 18 (the order per run alone gave the user of four runs 8 and the
// user of one 4).
TEST(Scheduler, ThreeUsersOfUnevenRunCountsGetEqualShares) {
    std::vector<RunCandidate> runs = {run(1, 0, 0, 100, "one"),  run(2, 0, 0, 100, "two"),
                                      run(3, 0, 0, 100, "two"),  run(4, 0, 0, 100, "four"),
                                      run(5, 0, 0, 100, "four"), run(6, 0, 0, 100, "four"),
                                      run(7, 0, 0, 100, "four")};
    CandidatePool pool;
    bool all = false;
    pool.take_touched(&all);
    for (const RunCandidate& c : runs) pool.put(c);
    for (int lease = 0; lease < 9; ++lease) {
        const std::optional<int64_t> chosen = pool.first([](const RunCandidate&) { return true; });
        ASSERT_EQ(chosen, choose_run(runs, worker()));
        RunCandidate& c = runs[size_t(*chosen - 1)];
        c.active_cores += 2;
        c.served_pairs += 4;
        pool.put(c);
    }
    const OwnerShares shares = owner_shares(runs);
    EXPECT_EQ(shares.at({0, "one"}).cores, 6);
    EXPECT_EQ(shares.at({0, "two"}).cores, 6);
    EXPECT_EQ(shares.at({0, "four"}).cores, 6);
    EXPECT_EQ(pool.share_of(0, "four"), (OwnerShare{6, 12}));
    EXPECT_EQ(runs[1].active_cores + runs[2].active_cores, 6);
    for (size_t i = 3; i < 7; ++i) EXPECT_LE(runs[i].active_cores, 2);
}

// One worker and three users: each lease ends before the next, so every user has 0 cores at each
// choice; the pairs served so far take turns, where the name alone would serve one user only.
TEST(Scheduler, NoUserWaitsForEverWhenWorkersAreFewerThanUsers) {
    std::vector<RunCandidate> runs = {run(1, 0, 0, 100, "carol"), run(2, 0, 0, 100, "alice"),
                                      run(3, 0, 0, 100, "bob")};
    std::map<std::string, int> leases;
    for (int lease = 0; lease < 9; ++lease) {
        const std::optional<int64_t> chosen = choose_run(runs, worker());
        ASSERT_TRUE(chosen);
        RunCandidate& c = runs[size_t(*chosen - 1)];
        c.served_pairs += 2;
        ++leases[c.owner];
    }
    EXPECT_EQ(leases, (std::map<std::string, int>{{"alice", 3}, {"bob", 3}, {"carol", 3}}));
}

// The pool serves its runs in choose_run's order as they are put, replaced and removed: the
// first it gives a worker is the run choose_run picks among the same runs, users and all.
TEST(Scheduler, TheCandidatePoolServesInChooseRunsOrder) {
    std::mt19937 random(7);
    std::vector<RunCandidate> runs;
    CandidatePool pool;
    bool all = false;
    EXPECT_TRUE(pool.take_touched(&all).empty());
    EXPECT_TRUE(all);  // the first time: every active run is read
    const std::vector<std::string> owners = {"alice", "bob", "carol", "dave", "erin"};
    for (int64_t id = 1; id <= 300; ++id) {
        RunCandidate c = run(id, int(random() % 3), int(random() % 20), 50 + int(random() % 200),
                             owners[random() % owners.size()]);
        c.memory_mb_per_game = random() % 4 == 0 ? 600 : 32;  // some need too much memory
        c.leasable = random() % 8 != 0;                       // some have all their pairs out
        runs.push_back(c);
        pool.put(c);
    }
    const auto pool_choice = [&](const WorkerProfile& w) {
        return pool.first([&](const RunCandidate& c) { return incapability(c, w).empty(); });
    };
    const auto leasable = [&] {
        return size_t(std::count_if(runs.begin(), runs.end(),
                                    [](const RunCandidate& c) { return c.leasable; }));
    };
    for (int round = 0; round < 300; ++round) {
        ASSERT_EQ(pool.size(), leasable());
        ASSERT_EQ(pool_choice(worker()), choose_run(runs, worker())) << round;
        OwnerShares shares = owner_shares(runs);
        for (const std::string& owner : owners)
            ASSERT_EQ(pool.share_of(1, owner), (shares[{1, owner}])) << round;
        // A lease on the chosen run, another ending elsewhere, a priority changed, a run
        // leasable again or not, a run ended.
        const std::optional<int64_t> chosen = choose_run(runs, worker());
        ASSERT_TRUE(chosen);
        for (RunCandidate& c : runs)
            if (c.run_id == *chosen) {
                c.active_cores += 2;
                c.served_pairs += 1 + random() % 3;
                pool.put(c);
            }
        RunCandidate& other = runs[random() % runs.size()];
        other.active_cores = std::max(0, other.active_cores - 2);
        other.priority = int(random() % 3);
        if (random() % 4 == 0) other.leasable = !other.leasable;
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
