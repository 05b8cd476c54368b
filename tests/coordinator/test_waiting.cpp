// Why a run waits: each connected worker's reason, counted per reason over the workers, with
// the fix and the line `show` prints (coordinator/domain/waiting.h).
#include <gtest/gtest.h>

#include "coordinator/domain/waiting.h"

namespace sparring::coordinator {
namespace {

constexpr const char* kGlaurung = "/usr/games/glaurung";

WaitingRun run(int64_t id, int priority = 0) {
    WaitingRun r;
    r.candidate.run_id = id;
    r.candidate.priority = priority;
    r.candidate.version_ids = {id * 10, id * 10 + 1};
    r.candidate.memory_mb_per_game = 32;
    r.test_id = id * 10;
    return r;
}

ConnectedWorker worker(int64_t id, std::vector<std::string> engines = {}, int concurrency = 2) {
    ConnectedWorker w;
    w.id = id;
    w.profile.concurrency = concurrency;
    w.profile.memory_mb = 1024;
    w.profile.uci_engines = std::move(engines);
    return w;
}

// A speed of worker 1 with a version, measured at 990,000 ms.
WorkerSpeed speed(int64_t version, uint64_t nps) {
    WorkerSpeed s;
    s.worker_id = 1;
    s.version_id = version;
    s.nps = nps;
    s.measured_ms = 990'000;
    return s;
}

SpeedRule rule() {
    return {0.25, 4.0, 60'000, 1'000'000};
}

TEST(Waiting, NoConnectedWorkerIsAReasonOfItsOwn) {
    const RunWaiting w = run_waiting(run(1), {}, rule());
    ASSERT_EQ(w.reasons.size(), 1u);
    EXPECT_EQ(w.reasons[0].reason, WaitReason::NoWorkers);
    EXPECT_EQ(std::string(wait_reason_name(w.reasons[0].reason)), "no_workers");
    EXPECT_TRUE(w.unplayable);
    EXPECT_EQ(w.connected, 0u);
    EXPECT_EQ(waiting_line(w.reasons[0], 0).rfind("no connected worker (start one: ", 0), 0u);
}

TEST(Waiting, ReasonsAreCountedOverTheWorkersMostFirst) {
    WaitingRun r = run(1);
    r.candidate.uci_commands = {kGlaurung};
    r.candidate.threads = 4;
    const std::vector<ConnectedWorker> workers = {worker(1), worker(2, {kGlaurung}),
                                                  worker(3, {"/usr/games/stockfish"})};
    const RunWaiting w = run_waiting(r, workers, rule());
    ASSERT_EQ(w.reasons.size(), 2u);
    EXPECT_EQ(w.reasons[0].reason, WaitReason::NoEngine);
    EXPECT_EQ(w.reasons[0].workers, 2u);
    EXPECT_EQ(w.reasons[0].text, "no /usr/games/glaurung");
    EXPECT_EQ(waiting_line(w.reasons[0], w.connected),
              "2 of 3 workers: no /usr/games/glaurung (start one with `--uci-engines "
              "/usr/games/glaurung`)");
    EXPECT_EQ(w.reasons[1].reason, WaitReason::FewCores);
    EXPECT_EQ(w.reasons[1].workers, 1u);
    EXPECT_EQ(waiting_line(w.reasons[1], w.connected),
              "1 of 3 workers: fewer than 4 cores (start one with `--concurrency 4` or more)");
    EXPECT_TRUE(w.unplayable);
}

TEST(Waiting, AnEngineNoWorkerOffersIsSaidSo) {
    WaitingRun r = run(1);
    r.candidate.uci_commands = {kGlaurung};
    const std::vector<ConnectedWorker> workers = {worker(1), worker(2)};
    const RunWaiting w = run_waiting(r, workers, rule());
    ASSERT_EQ(w.reasons.size(), 1u);
    EXPECT_EQ(waiting_line(w.reasons[0], w.connected),
              "no connected worker offers /usr/games/glaurung (2 workers; start one with "
              "`--uci-engines /usr/games/glaurung`)");
}

TEST(Waiting, AWorkerThatCanPlayTheRunLeavesItPlayable) {
    WaitingRun r = run(1);
    r.candidate.uci_commands = {kGlaurung};
    const std::vector<ConnectedWorker> workers = {worker(1), worker(2, {kGlaurung})};
    const RunWaiting w = run_waiting(r, workers, rule());
    ASSERT_EQ(w.reasons.size(), 1u);
    EXPECT_EQ(w.reasons[0].workers, 1u);
    EXPECT_FALSE(w.unplayable);
    // Playing it: no reason of its own either.
    ConnectedWorker playing = worker(3);
    playing.run_id = 1;
    EXPECT_FALSE(worker_declines(r, playing, rule()));
}

TEST(Waiting, BusyWorkersCountOnlyWhileTheRunHasNoLeaseOut) {
    WaitingRun r = run(1, 0);
    ConnectedWorker higher = worker(1);
    higher.run_id = 7;
    higher.run_priority = 5;
    ConnectedWorker same = worker(2);
    same.run_id = 8;
    const std::vector<ConnectedWorker> workers = {higher, same};
    RunWaiting w = run_waiting(r, workers, rule());
    ASSERT_EQ(w.reasons.size(), 2u);
    EXPECT_EQ(w.reasons[0].reason, WaitReason::Outranked);
    EXPECT_EQ(w.reasons[0].text, "busy with runs of higher priority");
    EXPECT_EQ(w.reasons[1].reason, WaitReason::Busy);
    EXPECT_FALSE(w.unplayable) << "busy workers could play it";
    r.served = true;
    w = run_waiting(r, workers, rule());
    EXPECT_TRUE(w.reasons.empty()) << "a served run shares the workers as the scheduler wants";
}

TEST(Waiting, AWorkerTooSlowForTheReferenceSpeedWhileItsSpeedIsFresh) {
    WaitingRun r = run(1);
    r.reference_nps = 1'000'000;
    ConnectedWorker slow = worker(1);
    slow.speeds.push_back(speed(r.test_id, 100'000));  // factor 10
    std::optional<Decline> d = worker_declines(r, slow, rule());
    ASSERT_TRUE(d);
    EXPECT_EQ(d->reason, WaitReason::TooSlow);
    EXPECT_EQ(d->need, "too slow for the run's reference speed of 1000000 nodes/s");
    EXPECT_EQ(d->text, "too slow for the run: 100000 nodes/s against its reference 1000000");
    // Measured too long ago, or with another engine: it may try again.
    slow.speeds[0].measured_ms = 1'000'000 - 60'000;
    EXPECT_FALSE(worker_declines(r, slow, rule()));
    slow.speeds[0] = speed(r.test_id + 1, 100'000);
    EXPECT_FALSE(worker_declines(r, slow, rule()));
    // Far faster than the reference: out of bounds too.
    slow.speeds[0] = speed(r.test_id, 100'000'000);
    d = worker_declines(r, slow, rule());
    ASSERT_TRUE(d);
    EXPECT_EQ(d->need.rfind("too fast", 0), 0u);
    // Within bounds: nothing.
    slow.speeds[0] = speed(r.test_id, 500'000);
    EXPECT_FALSE(worker_declines(r, slow, rule()));
}

TEST(Waiting, QuarantinedBarredAndRefusedWorkersSayWhy) {
    WaitingRun r = run(1);
    r.quarantined = {1};
    ConnectedWorker barred = worker(2);
    barred.profile.barred_runs = {1};
    ConnectedWorker refused = worker(3);
    refused.profile.refused_versions = {11};
    const std::vector<ConnectedWorker> workers = {worker(1), barred, refused};
    const RunWaiting w = run_waiting(r, workers, rule());
    std::vector<WaitReason> got;
    for (const WaitingReason& reason : w.reasons) got.push_back(reason.reason);
    EXPECT_EQ(got, (std::vector{WaitReason::Quarantined, WaitReason::Barred,
                                WaitReason::RefusedVersion}));
    EXPECT_TRUE(w.unplayable);
}

TEST(Waiting, UploadsAndMemoryAreReasonsToo) {
    WaitingRun r = run(1);
    r.candidate.uploaded_engines = true;
    ConnectedWorker w = worker(1);
    EXPECT_EQ(worker_declines(r, w, rule())->reason, WaitReason::NoUploads);
    w.profile.accepts_uploaded_engines = true;
    r.candidate.memory_mb_per_game = 4096;
    const std::optional<Decline> d = worker_declines(r, w, rule());
    ASSERT_TRUE(d);
    EXPECT_EQ(d->reason, WaitReason::Memory);
    EXPECT_EQ(d->text, "has 1024 MiB, needs 8192 MiB");
}

TEST(Waiting, TheBoardListsTheRunsEachWorkerDeclines) {
    WaitingBoard board;
    board.rule = rule();
    WaitingRun engine = run(1);
    engine.candidate.uci_commands = {kGlaurung};
    board.runs.emplace(1, engine);
    board.runs.emplace(2, run(2, 9));
    ConnectedWorker busy = worker(4);
    busy.run_id = 3;
    board.workers = {worker(2, {kGlaurung}), busy};  // by id
    EXPECT_TRUE(board.declined_by(2).empty());
    const std::vector<DeclinedRun> declined = board.declined_by(4);
    ASSERT_EQ(declined.size(), 1u) << "busy with run 3 is no decline of run 2";
    EXPECT_EQ(declined[0].run_id, 1);
    EXPECT_EQ(declined[0].reason, "no_engine");
    EXPECT_EQ(declined[0].text, "lacks the UCI engine '/usr/games/glaurung'");
    EXPECT_TRUE(board.declined_by(3).empty()) << "not connected";
    EXPECT_TRUE(board.of(5).reasons.empty()) << "not a run with pairs to lease";
    EXPECT_EQ(board.of(1).reasons.size(), 1u);
}

}  // namespace
}  // namespace sparring::coordinator
