// A worker's fleet controls on the coordinator (issue 52, part D): the runs they keep from it,
// with the waiting reasons and their fixes, the preferred owner's runs first, the checks of
// what a worker registers, and the JSON column they are stored in.
#include <gtest/gtest.h>

#include <vector>

#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/storage_error.h"
#include "coordinator/domain/waiting.h"
#include "coordinator/domain/worker_controls.h"
#include "coordinator/storage/worker_controls_column.h"

namespace sparring::coordinator {
namespace {

RunCandidate run(int64_t id, const std::string& owner, bool fixed_nodes = true, int threads = 1,
                 int priority = 0, int active_cores = 0) {
    RunCandidate c;
    c.run_id = id;
    c.owner = owner;
    c.fixed_nodes = fixed_nodes;
    c.threads = threads;
    c.priority = priority;
    c.active_cores = active_cores;
    return c;
}

WorkerProfile worker(int concurrency = 8) {
    WorkerProfile w;
    w.concurrency = concurrency;
    w.memory_mb = 1 << 20;
    return w;
}

TEST(WorkerControls, OnlyFixedNodesDeclinesClockRunsWithAReasonAndAFix) {
    WorkerProfile w = worker();
    w.controls.only_fixed_nodes = true;
    const std::optional<Decline> d = decline(run(1, "alice", false), w);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->reason, WaitReason::NodesOnly);
    EXPECT_STREQ(wait_reason_name(d->reason), "nodes_only");
    EXPECT_EQ(d->text, "plays only node- and depth-limited runs");
    EXPECT_FALSE(decline(run(2, "alice", true), w));
    WaitingRun waiting;
    waiting.candidate = run(1, "alice", false);
    EXPECT_NE(waiting_fix(waiting, d->reason, d->need).find("without `--only-fixed-nodes`"),
              std::string::npos);
    // Without the control a clock run is played.
    EXPECT_FALSE(decline(run(1, "alice", false), worker()));
}

TEST(WorkerControls, ThreadsOutOfRangeAreDeclined) {
    WorkerProfile w = worker();
    w.controls.min_threads = 2;
    w.controls.max_threads = 4;
    for (const int threads : {1, 5, 8}) {
        const std::optional<Decline> d = decline(run(1, "a", true, threads), w);
        ASSERT_TRUE(d) << threads;
        EXPECT_EQ(d->reason, WaitReason::Threads);
        EXPECT_STREQ(wait_reason_name(d->reason), "threads");
        EXPECT_EQ(d->text,
                  "takes runs of 2 to 4 threads a game, the run has " + std::to_string(threads));
    }
    for (const int threads : {2, 3, 4}) EXPECT_FALSE(decline(run(1, "a", true, threads), w));
    w.controls.min_threads = 0;
    w.controls.max_threads = 1;
    EXPECT_EQ(decline(run(1, "a", true, 2), w)->text,
              "takes runs of at most 1 thread a game, the run has 2");
    w.controls.min_threads = 2;
    w.controls.max_threads = 0;
    EXPECT_EQ(w.controls.threads_range(), "at least 2 threads");
    WaitingRun waiting;
    waiting.candidate = run(1, "a", true, 8);
    EXPECT_NE(waiting_fix(waiting, WaitReason::Threads, "").find("take 8 threads"),
              std::string::npos);
}

TEST(WorkerControls, PreferredOwnersRunsComeFirstWhateverTheOthersShare) {
    // bob's run has a higher priority and alice's runs have more cores at work.
    const std::vector<RunCandidate> runs = {run(1, "bob", true, 1, 5, 0),
                                            run(2, "alice", true, 1, 0, 16),
                                            run(3, "alice", true, 1, 0, 8)};
    WorkerProfile w = worker();
    EXPECT_EQ(choose_run(runs, w), 1);
    w.controls.prefer_owner = "alice";
    // alice's first, and among hers the usual order (fewer active cores first).
    EXPECT_EQ(choose_run(runs, w), 3);
    // A preferred run it cannot play does not keep it from the others.
    w.controls.only_fixed_nodes = true;
    const std::vector<RunCandidate> clocks = {run(1, "bob", true), run(2, "alice", false)};
    EXPECT_EQ(choose_run(clocks, w), 1);
    w.controls.prefer_owner = "carol";  // nobody's runs: the usual order
    EXPECT_EQ(choose_run(runs, w), 1);
}

TEST(WorkerControls, WhatAWorkerRegistersIsChecked) {
    WorkerControls c;
    EXPECT_TRUE(check_worker_controls(c).ok());
    c.prefer_owner = "alice";
    c.min_threads = 2;
    c.max_threads = 4;
    c.cpu_affinity = "0-7,16-23";
    c.exit_when_idle_seconds = 600;
    EXPECT_TRUE(check_worker_controls(c).ok());
    WorkerControls bad = c;
    bad.min_threads = 5;
    EXPECT_EQ(check_worker_controls(bad).message(),
              "the worker's least threads (5) are over its most (4)");
    bad = c;
    bad.max_threads = 5000;
    EXPECT_FALSE(check_worker_controls(bad).ok());
    bad = c;
    bad.cpu_affinity = std::string(300, '1');
    EXPECT_FALSE(check_worker_controls(bad).ok());
    bad = c;
    bad.prefer_owner = "al\x01ice";
    EXPECT_FALSE(check_worker_controls(bad).ok());
    bad = c;
    bad.exit_when_idle_seconds = -1;
    EXPECT_FALSE(check_worker_controls(bad).ok());
}

TEST(WorkerControls, TheColumnKeepsWhatIsSet) {
    EXPECT_EQ(worker_controls_column({}), "{}");
    WorkerControls c;
    c.only_fixed_nodes = true;
    c.prefer_owner = "alice";
    c.min_threads = 2;
    c.max_threads = 4;
    c.cpu_affinity = "performance";
    c.exit_when_idle_seconds = 600;
    const WorkerControls back = read_worker_controls(worker_controls_column(c));
    EXPECT_TRUE(back.only_fixed_nodes);
    EXPECT_EQ(back.prefer_owner, "alice");
    EXPECT_EQ(back.min_threads, 2);
    EXPECT_EQ(back.max_threads, 4);
    EXPECT_EQ(back.cpu_affinity, "performance");
    EXPECT_EQ(back.exit_when_idle_seconds, 600);
    EXPECT_FALSE(read_worker_controls("").only_fixed_nodes);
    EXPECT_THROW(read_worker_controls("{\"min_threads\": \"x\"}"), StorageError);
}

}  // namespace
}  // namespace sparring::coordinator
