// Fault storms pause a run: the bound as users write it, the decision in the transaction that
// counts a report, the pause's reason, resuming, and the per-worker test of faults that tells a
// faulty machine (quarantined) from a faulty engine (the run pauses).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/fault_bound.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

TEST(FaultBoundTest, ParsesWhatUsersWriteAndRefusesTheRest) {
    std::string error;
    EXPECT_EQ(parse_fault_bound("10%/20", &error), (FaultBound{10, 20, false}));
    EXPECT_EQ(parse_fault_bound("25%", &error), (FaultBound{25, 20, false}));
    EXPECT_EQ(parse_fault_bound("40%/100", &error), (FaultBound{40, 100, false}));
    EXPECT_TRUE(parse_fault_bound("off", &error)->off);
    EXPECT_EQ(fault_bound_text(FaultBound{25, 40, false}), "25%/40");
    EXPECT_EQ(fault_bound_text(FaultBound{25, 40, true}), "off");
    for (const char* bad : {"", "10", "%", "10%/", "10%/x", "0%", "101%", "10%/1", "-5%", "x%",
                            "10%20", "10%/20/30", "on"}) {
        error.clear();
        EXPECT_FALSE(parse_fault_bound(bad, &error)) << bad;
        EXPECT_FALSE(error.empty()) << bad;
    }
}

TEST(FaultBoundTest, PassesOnlyPastThePercentageOnceTheMinimumIsCounted) {
    const FaultBound bound{10, 20, false};
    EXPECT_FALSE(passes_fault_bound(bound, 18, 18)) << "fewer games than the minimum";
    EXPECT_FALSE(passes_fault_bound(bound, 2, 20)) << "10% is not more than 10%";
    EXPECT_TRUE(passes_fault_bound(bound, 3, 20));
    EXPECT_FALSE(passes_fault_bound(bound, 10, 100));
    EXPECT_TRUE(passes_fault_bound(bound, 11, 100));
    EXPECT_FALSE(passes_fault_bound(FaultBound{10, 20, true}, 40, 40)) << "off";
    EXPECT_FALSE(passes_fault_bound(FaultBound{100, 2, false}, 2, 2)) << "100%: never past";
}

class FaultPauseTest : public CoreFixture {
  protected:
    FaultPauseTest() {
        add_version("test");
        add_version("base", 250);
    }

    // A fixed-games run whose leases hold up to 50 pairs (a worker of concurrency 1).
    RunSpec fixed(uint64_t games) const {
        RunSpec s = spec(RunKind::FixedGames, games);
        s.pairs_per_thread = 50;
        return s;
    }

    // Returns a lease of the run for a new worker of concurrency 1 (with its caller).
    std::pair<Caller, LeaseGrant> lease() {
        const auto [caller, worker] = add_worker(1);
        auto granted = transact([&, caller = caller, worker = worker](Storage& s) {
            return core->request_work(s, caller, worker);
        });
        EXPECT_TRUE(granted.ok() && granted->has_value());
        return {caller, **granted};
    }

    // Reports pairs [first, first + count) of a lease, the first `faulty` of their games lost
    // by the test version's illegal move, the others by the rules.
    absl::StatusOr<ReportAck> play(const Caller& caller, const LeaseGrant& lease, uint32_t sequence,
                                   uint32_t first, uint32_t count, uint32_t faulty,
                                   GameEnding fault = GameEnding::IllegalMove) {
        std::vector<uint32_t> indices;
        for (uint32_t i = first; i < first + count; ++i) indices.push_back(i);
        Report r = report(lease, sequence, indices, Outcome::Win, Outcome::Draw);
        for (PairRecord& pair : r.pairs)
            for (GameRecord& game : pair.games) {
                game.ending = GameEnding::Rules;
                if (faulty > 0) {
                    game.outcome = Outcome::Loss;
                    game.ending = fault;
                    --faulty;
                }
            }
        return transact([&](Storage& s) { return core->report_results(s, caller, r); });
    }

    RunFaults faults_of(int64_t run_id) {
        storage->begin(false);
        const std::optional<RunFaults> f = storage->find_run_faults(run_id);
        storage->commit();
        EXPECT_TRUE(f.has_value());
        return f.value_or(RunFaults{});
    }

    coordinator::Run read(int64_t run_id) {
        storage->begin(false);
        const std::optional<coordinator::Run> run = storage->find_run(run_id);
        storage->commit();
        return *run;
    }

    const Caller admin{0, Role::Admin, "root", ""};
};

TEST_F(FaultPauseTest, ARunPausesAtTheReportThatPassesItsBoundAndNamesTheFault) {
    const coordinator::Run run = submit(fixed(200));
    EXPECT_EQ(faults_of(run.id).bound, FaultBound{}) << "the coordinator's default, 10%/20";
    const auto [caller, granted] = lease();
    // 8 pairs, 2 faulty games: 16 games, under the minimum of 20.
    ASSERT_TRUE(play(caller, granted, 1, 0, 8, 2).ok());
    EXPECT_EQ(read(run.id).state, RunState::Active);
    EXPECT_EQ(faults_of(run.id).faults, 2);
    // 2 more pairs, no fault: 20 games, 2 faulty is 10%, not more.
    ASSERT_TRUE(play(caller, granted, 2, 8, 2, 0).ok());
    EXPECT_EQ(read(run.id).state, RunState::Active);
    // 1 pair with one faulty game: 3 of 22 games, past 10%.
    const absl::StatusOr<ReportAck> ack = play(caller, granted, 3, 10, 1, 1);
    ASSERT_TRUE(ack.ok()) << ack.status();
    EXPECT_TRUE(ack->stop) << "the worker stops playing the paused run's lease";
    const coordinator::Run paused = read(run.id);
    EXPECT_EQ(paused.state, RunState::Paused);
    EXPECT_EQ(paused.pairs_leased, 0u);
    EXPECT_GT(paused.free_pairs, 0u) << "its unplayed pairs wait in its pool";
    const RunFaults f = faults_of(run.id);
    ASSERT_TRUE(f.pause);
    EXPECT_EQ(f.pause->version, "test");
    EXPECT_EQ(f.pause->engine, "built-in");
    EXPECT_EQ(f.pause->fault, GameEnding::IllegalMove);
    EXPECT_EQ(f.pause->fault_games, 3);
    EXPECT_EQ(f.pause->faulty_games, 3);
    EXPECT_EQ(f.pause->games, 22);
    EXPECT_EQ(f.pause->example_game, 0u) << "the first game of pair 0";
    EXPECT_NE(paused.result.find("lost 3 games by illegal move; 3 of 22 games faulty (13.6%), past "
                                 "the bound 10%/20; e.g. game 0"),
              std::string::npos)
        << paused.result;

    // Nobody is leased its games; a report of the stopped lease is refused saying why.
    const auto [other, other_worker] = add_worker(1);
    auto none = transact([&, other = other, other_worker = other_worker](Storage& s) {
        return core->request_work(s, other, other_worker);
    });
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
    const absl::StatusOr<ReportAck> late = play(caller, granted, 4, 11, 1, 0);
    ASSERT_FALSE(late.ok());
    EXPECT_NE(late.status().message().find("paused: "), std::string::npos) << late.status();
    // No version is made of it.
    auto made = transact([&](Storage& s) { return core->version_of_run(s, run.id); });
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(made.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(FaultPauseTest, OnlyTheOwnerOrAnAdminResumesAndTheCountStartsAfresh) {
    RunSpec s = fixed(200);
    const coordinator::Run run =
        transact([&](Storage& st) {
            return core->submit_run(st, Caller{0, Role::User, "ann", ""}, s);
        }).value();
    const auto [caller, granted] = lease();
    ASSERT_TRUE(play(caller, granted, 1, 0, 10, 5).ok());
    ASSERT_EQ(read(run.id).state, RunState::Paused);

    const auto resume = [&](const Caller& who, std::optional<FaultBound> bound) {
        return transact([&](Storage& st) { return core->resume_run(st, who, run.id, bound); });
    };
    EXPECT_EQ(resume(Caller{0, Role::User, "bob", ""}, std::nullopt).status().code(),
              absl::StatusCode::kPermissionDenied);
    EXPECT_EQ(resume(Caller{0, Role::User, "ann", ""}, FaultBound{0, 20, false}).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(read(run.id).state, RunState::Paused) << "a refusal changes nothing";

    const absl::StatusOr<coordinator::Run> resumed =
        resume(Caller{0, Role::User, "ann", ""}, FaultBound{50, 40, false});
    ASSERT_TRUE(resumed.ok()) << resumed.status();
    EXPECT_EQ(resumed->state, RunState::Active);
    EXPECT_TRUE(resumed->result.empty());
    const RunFaults f = faults_of(run.id);
    EXPECT_EQ(f.bound, (FaultBound{50, 40, false}));
    EXPECT_EQ(f.faults, 0);
    EXPECT_EQ(f.from_games, 20);
    EXPECT_FALSE(f.pause);
    storage->begin(false);
    const std::vector<RunChange> changes = storage->run_changes(run.id);
    storage->commit();
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].field, "state");
    EXPECT_EQ(changes[0].old_value, "paused");
    EXPECT_EQ(changes[0].new_value, "active");
    EXPECT_EQ(changes[1].field, "fault_bound");
    EXPECT_EQ(changes[1].old_value, "10%/20");
    EXPECT_EQ(changes[1].new_value, "50%/40");
    EXPECT_EQ(resume(admin, std::nullopt).status().code(), absl::StatusCode::kFailedPrecondition)
        << "an active run does not resume";

    // Workers are leased it again; the new bound counts only games since the resume.
    const auto [caller2, granted2] = lease();
    ASSERT_TRUE(play(caller2, granted2, 1, 0, 20, 20).ok());
    EXPECT_EQ(read(run.id).state, RunState::Active) << "20 of 40 is not more than 50%";
    ASSERT_TRUE(play(caller2, granted2, 2, 20, 1, 2).ok());
    EXPECT_EQ(read(run.id).state, RunState::Paused) << "22 of 42";
}

TEST_F(FaultPauseTest, ARunWithTheBoundOffNeverPauses) {
    RunSpec s = fixed(40);
    s.fault_bound = FaultBound{10, 20, true};
    const coordinator::Run run = submit(s);
    const auto [caller, granted] = lease();
    ASSERT_TRUE(play(caller, granted, 1, 0, 20, 40).ok());
    EXPECT_EQ(read(run.id).state, RunState::Finished);
    EXPECT_EQ(faults_of(run.id).faults, 40);
}

TEST_F(FaultPauseTest, AStopEndsAPausedRunAndABoundChangesByModify) {
    const coordinator::Run run = submit(fixed(200));
    RunModification change;
    change.run_id = run.id;
    change.fault_bound = FaultBound{30, 10, false};
    ASSERT_TRUE(transact([&](Storage& s) { return core->modify_run(s, admin, change); }).ok());
    EXPECT_EQ(faults_of(run.id).bound, (FaultBound{30, 10, false}));
    change.fault_bound = FaultBound{30, 1, false};
    EXPECT_EQ(
        transact([&](Storage& s) { return core->modify_run(s, admin, change); }).status().code(),
        absl::StatusCode::kInvalidArgument);
    const auto [caller, granted] = lease();
    ASSERT_TRUE(play(caller, granted, 1, 0, 5, 4).ok());
    ASSERT_EQ(read(run.id).state, RunState::Paused) << "4 of 10 games, past 30%";
    ASSERT_TRUE(transact([&](Storage& s) { return core->stop_run(s, admin, run.id); }).ok());
    EXPECT_EQ(read(run.id).state, RunState::Stopped);
    auto made = transact([&](Storage& s) { return core->version_of_run(s, run.id); });
    EXPECT_EQ(made.status().code(), absl::StatusCode::kFailedPrecondition)
        << "stopped while paused: still no version of it";
}

// A tuning run applies no pair holding a faulty game to its values: it counts them apart, and a
// report of faulty pairs alone moves nothing and adds no point to the trajectory.
TEST_F(FaultPauseTest, ATuningRunLeavesFaultyPairsOutOfItsValues) {
    RunSpec s = spec(RunKind::Tune, 40, "base", "base");
    s.tune.params = {{"KnightValueMg", {}, {}, {}, {}, 0.05}};
    s.pairs_per_thread = 50;
    s.fault_bound = FaultBound{10, 20, true};
    const coordinator::Run run = submit(s);
    const auto [caller, granted] = lease();
    // Pairs 0-3: the first 3 games faulty (pairs 0 and 1), pairs 2 and 3 clean.
    ASSERT_TRUE(play(caller, granted, 1, 0, 4, 3).ok());
    storage->begin(false);
    TuneState tune = *storage->find_tune(run.id);
    storage->commit();
    EXPECT_EQ(tune.pairs_applied, 2);
    EXPECT_EQ(tune.pairs_faulty, 2);
    // Pairs 4 and 5, every game faulty: nothing applied, no error.
    const absl::StatusOr<ReportAck> ack = play(caller, granted, 2, 4, 2, 4);
    ASSERT_TRUE(ack.ok()) << ack.status();
    storage->begin(false);
    tune = *storage->find_tune(run.id);
    const std::vector<TunePoint> points = storage->list_tune_points(run.id);
    storage->commit();
    EXPECT_EQ(tune.pairs_applied, 2);
    EXPECT_EQ(tune.pairs_faulty, 4);
    ASSERT_EQ(points.size(), 2u) << "the start and the first report's";
    EXPECT_EQ(points.back().pairs, 2);
}

// A faulty machine: one worker's games crash far more often than the rest of the run's, the
// same engine plays cleanly elsewhere; it is quarantined, the run is not paused (its faults
// are under the bound). A faulty engine faults alike on every worker: nobody is quarantined.
TEST_F(FaultPauseTest, AWorkerFaultingFarMoreThanTheRestIsQuarantined) {
    Core::Options options = core->options();
    options.quarantine_p = 0.001;
    core = std::make_unique<Core>(options, [this] { return now.load(); });
    RunSpec s = spec(RunKind::FixedGames, 2000);
    s.pairs_per_thread = 200;
    const coordinator::Run run = submit(s);
    const auto [honest_caller, honest] = lease();
    const auto [broken_caller, broken] = lease();
    ASSERT_TRUE(play(honest_caller, honest, 1, 0, 100, 1, GameEnding::Crash).ok());
    ASSERT_TRUE(play(broken_caller, broken, 1, 0, 15, 12, GameEnding::Crash).ok());
    ASSERT_EQ(read(run.id).state, RunState::Active) << "13 of 230 games: under 10%";
    const coordinator::Run counted = read(run.id);
    storage->begin(false);
    const std::vector<WorkerFit> fits = core->worker_fits(*storage, counted);
    storage->commit();
    ASSERT_EQ(fits.size(), 2u);
    ASSERT_TRUE(transact([&](Storage& st) { return core->stop_run(st, admin, run.id); }).ok());
    for (const WorkerFit& w : fits) {
        if (w.worker_id == broken.lease.worker_id) {
            EXPECT_EQ(w.faults, 12);
            EXPECT_LT(w.fault_p, 1e-6);
            EXPECT_TRUE(w.quarantined);
        } else {
            EXPECT_EQ(w.faults, 1);
            EXPECT_GT(w.fault_p, 0.5);
        }
    }

    // The same engine fault on both workers at the same rate: neither stands out.
    RunSpec t = spec(RunKind::FixedGames, 2000);
    t.pairs_per_thread = 200;
    t.fault_bound = FaultBound{10, 20, true};
    const coordinator::Run alike = submit(t);
    const auto [a_caller, a] = lease();
    const auto [b_caller, b] = lease();
    ASSERT_EQ(a.run.id, alike.id);
    ASSERT_TRUE(play(a_caller, a, 1, 0, 60, 60).ok());
    ASSERT_TRUE(play(b_caller, b, 1, 0, 30, 30).ok());
    const coordinator::Run alike_counted = read(alike.id);
    storage->begin(false);
    const std::vector<WorkerFit> same = core->worker_fits(*storage, alike_counted);
    storage->commit();
    for (const WorkerFit& w : same) {
        EXPECT_GT(w.fault_p, 0.01) << w.name;
        EXPECT_FALSE(w.fault_p < options.quarantine_p) << w.name;
    }
}

}  // namespace
}  // namespace sparring::coordinator::testing
