// The core's leases and exactly-once accounting, on a temporary SQLite file with a fake clock.
#include <gtest/gtest.h>

#include "coordinator/domain/run_history.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

class LeaseTest : public CoreFixture {
  protected:
    void SetUp() override {
        add_version("test");
        add_version("base", 250);
    }

    // Requests work for a worker and returns the lease, failing the test if there is none.
    LeaseGrant lease_for(const Caller& caller, int64_t worker) {
        auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
        EXPECT_TRUE(lease.ok()) << lease.status();
        EXPECT_TRUE(lease.ok() && lease->has_value());
        return lease.ok() && lease->has_value() ? **lease : LeaseGrant{};
    }

    absl::StatusOr<ReportAck> send(const Caller& caller, const Report& r) {
        return transact([&](Storage& s) { return core->report_results(s, caller, r); });
    }

    coordinator::Run run_now(int64_t id) {
        return *transact([&](Storage& s) { return core->get_run(s, id); });
    }
    // Returns what is shown of a run alone, as GetRun reads it beside the run.
    RunDetails details_now(int64_t id) {
        RunDetails details;
        EXPECT_TRUE(transact([&](Storage& s) { return core->get_run(s, id, &details); }).ok());
        return details;
    }
};

TEST_F(LeaseTest, LeaseCarriesPairsOpeningsAndVersions) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker(2);
    const LeaseGrant lease = lease_for(caller, worker);
    EXPECT_EQ(lease.run.id, run.id);
    EXPECT_EQ(lease.lease.first_pair, 0u);
    EXPECT_EQ(lease.lease.pairs, 4u);  // 2 pairs per thread x concurrency 2
    ASSERT_EQ(lease.openings.size(), 4u);
    EXPECT_EQ(lease.openings[1].moves, std::vector<std::string>{"e2e4"});
    EXPECT_EQ(lease.test.name, "test");
    EXPECT_EQ(lease.base.name, "base");
    EXPECT_NE(lease.base.params_json, lease.test.params_json);
    EXPECT_EQ(lease.lease.expires_ms, now + 10'000);
    EXPECT_EQ(run_now(run.id).pairs_leased, 4u);
}

TEST_F(LeaseTest, CachedHistoryIsTheHistoryOfEveryReportAndFollowsNewOnes) {
    const coordinator::Run run = submit(spec(RunKind::Regression, 400));
    auto [caller, worker] = add_worker(2);
    auto [other_caller, other] = add_worker(2);
    RunHistoryCache cache(16);
    const auto compare = [&](size_t max_points) {
        storage->begin(false);
        const RunHistory cached = *cache.history(*storage, run.id, max_points);
        const RunHistory whole =
            history_of(*storage->find_run(run.id), storage->list_reports(run.id, 0), max_points);
        storage->commit();
        ASSERT_EQ(cached.points.size(), whole.points.size());
        for (size_t i = 0; i < whole.points.size(); ++i) {
            EXPECT_EQ(cached.points[i].games, whole.points[i].games) << i;
            EXPECT_EQ(cached.points[i].unix_ms, whole.points[i].unix_ms) << i;
            EXPECT_DOUBLE_EQ(cached.points[i].llr, whole.points[i].llr) << i;
            EXPECT_DOUBLE_EQ(cached.points[i].elo.elo, whole.points[i].elo.elo) << i;
        }
        ASSERT_EQ(cached.workers.size(), whole.workers.size());
        for (size_t i = 0; i < whole.workers.size(); ++i) {
            EXPECT_EQ(cached.workers[i].counts.pairs, whole.workers[i].counts.pairs);
            EXPECT_DOUBLE_EQ(cached.workers[i].residual, whole.workers[i].residual);
        }
    };
    compare(500);
    for (int round = 0; round < 6; ++round) {
        const bool first = round % 2 == 0;
        const LeaseGrant lease = lease_for(first ? caller : other_caller, first ? worker : other);
        now += 1000;
        ASSERT_TRUE(send(first ? caller : other_caller,
                         report(lease, 1, {0, 1}, first ? Outcome::Win : Outcome::Loss))
                        .ok());
        compare(500);
        compare(3);
        // The other two pairs stay out on the lease until the next round reports them.
        storage->begin(false);
        const RunHistory now_out = *cache.history(*storage, run.id, 500);
        storage->commit();
        ASSERT_EQ(now_out.leases.size(), 1u);
        EXPECT_EQ(now_out.leases[0].lease_id, lease.lease.id);
        EXPECT_EQ(now_out.leases[0].games, 8u);
        EXPECT_EQ(now_out.leases[0].games_reported, 4u);
        ASSERT_TRUE(send(first ? caller : other_caller, report(lease, 2, {2, 3})).ok());
    }
    compare(500);
    storage->begin(false);
    const RunHistory end = *cache.history(*storage, run.id, 500);
    EXPECT_FALSE(cache.history(*storage, run.id + 100, 500).ok());
    storage->commit();
    EXPECT_TRUE(end.leases.empty());
    ASSERT_EQ(end.workers.size(), 2u);
    EXPECT_EQ(end.workers[0].counts.pairs, 12);
    // Each worker's residual is its fit in the run, as GetRun (and `sparring show`) has it.
    const RunDetails shown = details_now(run.id);
    ASSERT_EQ(shown.workers.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(end.workers[i].worker_id, shown.workers[i].worker_id);
        EXPECT_DOUBLE_EQ(end.workers[i].residual, shown.workers[i].fit.residual);
    }
}

TEST_F(LeaseTest, RepeatedRequestReturnsTheSameLease) {
    submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker();
    const LeaseGrant first = lease_for(caller, worker);
    now += 1000;
    const LeaseGrant again = lease_for(caller, worker);
    EXPECT_EQ(again.lease.id, first.lease.id);
    EXPECT_EQ(again.lease.expires_ms, now + 10'000);
}

TEST_F(LeaseTest, FixedGamesRunCountsExactlyItsGames) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 10));  // 5 pairs
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto added = add_worker(2);
    Caller& caller = added.first;
    const int64_t worker = added.second;
    const LeaseGrant a = lease_for(caller, worker);
    ASSERT_TRUE(send(caller, report(a, 1, {0, 1, 2, 3})).ok());
    const LeaseGrant b = lease_for(caller, worker);
    EXPECT_EQ(b.lease.first_pair, 4u);
    EXPECT_EQ(b.lease.pairs, 1u);
    auto ack = send(caller, report(b, 1, {0}));
    ASSERT_TRUE(ack.ok()) << ack.status();
    EXPECT_FALSE(ack->stop);  // the lease is complete, nothing left to stop
    const coordinator::Run done = run_now(run.id);
    EXPECT_EQ(done.state, RunState::Finished);
    EXPECT_EQ(done.result, "completed");
    EXPECT_EQ(done.counts.pairs, 5);
    EXPECT_EQ(done.counts.wins, 5);
    EXPECT_EQ(done.counts.draws, 5);
    EXPECT_EQ(done.counts.penta.counts[3], 5);  // win + draw = WD
    auto none = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
}

TEST_F(LeaseTest, DuplicateReportIsAcknowledgedAndNotCounted) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker();
    const LeaseGrant lease = lease_for(caller, worker);
    const Report r = report(lease, 1, {0, 1});
    ASSERT_FALSE(send(caller, r)->duplicate);
    auto again = send(caller, r);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->duplicate);
    EXPECT_EQ(run_now(run.id).counts.pairs, 2);
}

TEST_F(LeaseTest, RetryWithOtherContentIsRefused) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker();
    const LeaseGrant lease = lease_for(caller, worker);
    ASSERT_TRUE(send(caller, report(lease, 1, {0})).ok());
    auto forged = send(caller, report(lease, 1, {0}, Outcome::Win, Outcome::Win));
    EXPECT_EQ(forged.status().code(), absl::StatusCode::kAlreadyExists);
    EXPECT_EQ(run_now(run.id).counts.wins, 1);
}

TEST_F(LeaseTest, PairsOutsideTheLeaseOrReportedTwiceAreRefused) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker();
    const LeaseGrant lease = lease_for(caller, worker);
    EXPECT_EQ(send(caller, report(lease, 1, {lease.lease.pairs})).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(send(caller, report(lease, 1, {0, 0})).status().code(),
              absl::StatusCode::kInvalidArgument);
    ASSERT_TRUE(send(caller, report(lease, 1, {0})).ok());
    auto twice = send(caller, report(lease, 2, {0}));
    EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(twice.status().message().find("already reported"), std::string::npos);
    EXPECT_EQ(send(caller, report(lease, 4, {1})).status().code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(run_now(run.id).counts.pairs, 1);
}

TEST_F(LeaseTest, AnotherWorkersLeaseIsRefused) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    auto [caller, worker] = add_worker();
    auto [thief, thief_worker] = add_worker();
    const LeaseGrant lease = lease_for(caller, worker);
    Report r = report(lease, 1, {0});
    EXPECT_EQ(send(thief, r).status().code(), absl::StatusCode::kPermissionDenied);
    r.worker_id = thief_worker;
    EXPECT_EQ(send(thief, r).status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_EQ(run_now(run.id).counts.pairs, 0);
}

TEST_F(LeaseTest, ExpiredLeaseReturnsItsUnreportedPairs) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 8));  // 4 pairs
    auto [caller, worker] = add_worker(2);
    const LeaseGrant lease = lease_for(caller, worker);
    ASSERT_EQ(lease.lease.pairs, 4u);
    ASSERT_TRUE(send(caller, report(lease, 1, {1, 3})).ok());
    now += 10'001;
    EXPECT_EQ(
        transact([&](Storage& s) { return absl::StatusOr<int>(core->expire_leases(s)); }).value(),
        1);
    coordinator::Run r = run_now(run.id);
    EXPECT_EQ(r.free_pairs, 2u);
    EXPECT_EQ(r.pairs_leased, 0u);
    auto late = send(caller, report(lease, 2, {0}));
    EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);

    auto [other, other_worker] = add_worker(1);
    const LeaseGrant first = lease_for(other, other_worker);
    EXPECT_EQ(first.lease.first_pair, 0u);
    EXPECT_EQ(first.lease.pairs, 1u);
    ASSERT_TRUE(send(other, report(first, 1, {0})).ok());
    const LeaseGrant second = lease_for(other, other_worker);
    EXPECT_EQ(second.lease.first_pair, 2u);
    ASSERT_TRUE(send(other, report(second, 1, {0})).ok());
    r = run_now(run.id);
    EXPECT_EQ(r.state, RunState::Finished);
    EXPECT_EQ(r.counts.pairs, 4);
}

TEST_F(LeaseTest, RunEndingStopsOtherLeases) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 8));  // 4 pairs
    auto [a, worker_a] = add_worker(1);
    auto [b, worker_b] = add_worker(1);
    const LeaseGrant lease_a = lease_for(a, worker_a);  // pairs 0-1
    const LeaseGrant lease_b = lease_for(b, worker_b);  // pairs 2-3
    ASSERT_TRUE(send(a, report(lease_a, 1, {0})).ok());
    ASSERT_TRUE(transact([&](Storage& s) { return core->stop_run(s, run.id); }).ok());
    EXPECT_EQ(send(b, report(lease_b, 1, {0})).status().code(),
              absl::StatusCode::kFailedPrecondition);
    auto dup = send(a, report(lease_a, 1, {0}));
    ASSERT_TRUE(dup.ok());
    EXPECT_TRUE(dup->duplicate);
    EXPECT_TRUE(dup->stop);
    EXPECT_EQ(run_now(run.id).counts.pairs, 1);
}

TEST_F(LeaseTest, HeartbeatExtendsLeasesAndNamesStoppedOnes) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto added = add_worker();
    Caller& caller = added.first;
    const int64_t worker = added.second;
    const LeaseGrant lease = lease_for(caller, worker);
    now += 9'000;
    auto ack = transact([&](Storage& s) {
        return core->heartbeat(s, caller, worker, {lease.lease.id, 999});
    });
    ASSERT_TRUE(ack.ok());
    EXPECT_EQ(ack->stop_leases, std::vector<int64_t>{999});
    now += 9'000;
    EXPECT_EQ(
        transact([&](Storage& s) { return absl::StatusOr<int>(core->expire_leases(s)); }).value(),
        0);
    ASSERT_TRUE(transact([&](Storage& s) { return core->stop_run(s, run.id); }).ok());
    ack =
        transact([&](Storage& s) { return core->heartbeat(s, caller, worker, {lease.lease.id}); });
    EXPECT_EQ(ack->stop_leases, std::vector<int64_t>{lease.lease.id});
    EXPECT_EQ(send(caller, report(lease, 1, {0})).status().code(),
              absl::StatusCode::kFailedPrecondition);
}

TEST_F(LeaseTest, RegressionRunStopsWhenSprtAcceptsH1) {
    const coordinator::Run run = submit(spec(RunKind::Regression, 2000));
    auto [caller, worker] = add_worker(8);
    for (uint32_t n = 0; n < 100 && run_now(run.id).state == RunState::Active; ++n) {
        const LeaseGrant lease = lease_for(caller, worker);
        std::vector<uint32_t> all;
        for (uint32_t i = 0; i < lease.lease.pairs; ++i) all.push_back(i);
        ASSERT_TRUE(send(caller, report(lease, 1, all, Outcome::Win, Outcome::Win)).ok());
    }
    const coordinator::Run done = run_now(run.id);
    EXPECT_EQ(done.state, RunState::Finished);
    EXPECT_EQ(done.result, "H1 accepted");
    EXPECT_GE(done.sprt.llr, done.sprt.upper);
    EXPECT_LT(done.counts.pairs, 1000);
}

TEST_F(LeaseTest, BenchMismatchHandsBackAndExcludesTheWorker) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto added = add_worker();
    Caller& caller = added.first;
    const int64_t worker = added.second;
    const LeaseGrant lease = lease_for(caller, worker);
    Release release;
    release.worker_id = worker;
    release.lease_id = lease.lease.id;
    release.reason = Release::Reason::BenchMismatch;
    release.version_id = lease.base.id;
    release.computed_bench = lease.base.bench;
    EXPECT_EQ(transact([&](Storage& s) { return core->release_lease(s, caller, release); })
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument);
    release.computed_bench = 777;
    auto returned = transact([&](Storage& s) { return core->release_lease(s, caller, release); });
    ASSERT_TRUE(returned.ok()) << returned.status();
    EXPECT_EQ(*returned, lease.lease.pairs);
    const RunDetails r = details_now(run.id);
    ASSERT_EQ(r.bench_mismatches.size(), 1u);
    EXPECT_EQ(r.bench_mismatches[0].computed, 777u);
    auto none = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
    auto [other, other_worker] = add_worker();
    EXPECT_EQ(lease_for(other, other_worker).lease.first_pair, 0u);
}

TEST_F(LeaseTest, HigherPriorityRunIsServedFirst) {
    const coordinator::Run low = submit(spec(RunKind::FixedGames, 20));
    RunSpec urgent = spec(RunKind::FixedGames, 20);
    urgent.priority = 5;
    const coordinator::Run high = submit(urgent);
    auto [caller, worker] = add_worker();
    EXPECT_EQ(lease_for(caller, worker).run.id, high.id);
    auto [other, other_worker] = add_worker();
    EXPECT_EQ(lease_for(other, other_worker).run.id, high.id);
    EXPECT_NE(low.id, high.id);
}

// The scheduler keeps its runs in memory after the first request (issue 49): a run submitted,
// changed, leased, handed back or ended afterwards moves the next lease as a full read would.
TEST_F(LeaseTest, LeasesFollowRunsSubmittedChangedAndEndedAfterTheFirstRequest) {
    const Caller admin{1, Role::Admin, "root", {}};
    const coordinator::Run first = submit(spec(RunKind::FixedGames, 200));
    auto [caller, worker] = add_worker();
    auto [other, other_worker] = add_worker();
    const auto hand_back = [&](const Caller& c, const LeaseGrant& lease) {
        Release release;
        release.worker_id = lease.lease.worker_id;
        release.lease_id = lease.lease.id;
        ASSERT_TRUE(transact([&](Storage& s) { return core->release_lease(s, c, release); }).ok());
    };
    hand_back(caller, lease_for(caller, worker));  // the pool is read in full

    RunSpec urgent = spec(RunKind::FixedGames, 200);
    urgent.priority = 2;
    const coordinator::Run second = submit(urgent);
    const LeaseGrant on_second = lease_for(caller, worker);
    EXPECT_EQ(on_second.run.id, second.id);
    hand_back(caller, on_second);

    // Equal priorities: the run without cores at work goes first.
    RunModification change;
    change.run_id = second.id;
    change.priority = 0;
    ASSERT_TRUE(transact([&](Storage& s) { return core->modify_run(s, admin, change); }).ok());
    const LeaseGrant held = lease_for(caller, worker);
    EXPECT_EQ(held.run.id, first.id);
    EXPECT_EQ(lease_for(other, other_worker).run.id, second.id);
    hand_back(caller, held);
    hand_back(other, lease_for(other, other_worker));

    ASSERT_TRUE(transact([&](Storage& s) { return core->stop_run(s, admin, first.id); }).ok());
    const LeaseGrant last = lease_for(caller, worker);
    EXPECT_EQ(last.run.id, second.id);
    hand_back(caller, last);
    ASSERT_TRUE(transact([&](Storage& s) { return core->stop_run(s, admin, second.id); }).ok());
    // (Structured bindings are captured by init-capture: clang 14 refuses them in a lambda.)
    const auto none =
        transact([&, &c = caller, &w = worker](Storage& s) { return core->request_work(s, c, w); });
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value());
}

// Runs stored before owners were recorded have none: only an admin stops or changes them, and
// a refusal changes nothing (issue 31).
TEST_F(LeaseTest, ARunWithoutAnOwnerIsAnAdminsAlone) {
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 8));
    ASSERT_EQ(run.spec.owner, "");
    const Caller user{1, Role::User, "user", {}};
    const Caller admin{2, Role::Admin, "root", {}};
    RunModification change;
    change.run_id = run.id;
    change.priority = 3;
    const auto modified = transact([&](Storage& s) { return core->modify_run(s, user, change); });
    EXPECT_EQ(modified.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(modified.status().message().find("only an admin"), std::string_view::npos);
    const auto stopped = transact([&](Storage& s) { return core->stop_run(s, user, run.id); });
    EXPECT_EQ(stopped.status().code(), absl::StatusCode::kPermissionDenied);
    storage->begin(false);
    EXPECT_EQ(storage->find_run(run.id)->spec.priority, 0);
    EXPECT_EQ(storage->find_run(run.id)->state, RunState::Active);
    EXPECT_TRUE(storage->run_changes(run.id).empty());
    storage->commit();
    const auto by_admin = transact([&](Storage& s) { return core->modify_run(s, admin, change); });
    ASSERT_TRUE(by_admin.ok()) << by_admin.status();
    EXPECT_EQ(by_admin->spec.priority, 3);
    const RunDetails changed = details_now(run.id);
    ASSERT_EQ(changed.changes.size(), 1u);
    EXPECT_EQ(changed.changes[0].user, "root");
    EXPECT_TRUE(transact([&](Storage& s) { return core->stop_run(s, admin, run.id); }).ok());
}

// Scaled clocks (issue 30): a clock run is defined at its own reference speed, else its test
// version's, else the coordinator's; a reference on a run without a clock, or out of range, is
// refused and nothing is stored.
TEST_F(LeaseTest, AClocksReferenceSpeedComesFromTheRunTheVersionOrTheCoordinator) {
    RunSpec clock = spec(RunKind::FixedGames, 20);
    clock.time_control = *parse_time_control("10+0.1");
    EXPECT_EQ(submit(clock).spec.reference_nps, 0u) << "nothing says one: raw clocks";
    Core::Options options = core->options();
    options.reference_nps = 500'000;
    core = std::make_unique<Core>(options, [this] { return now.load(); });
    EXPECT_EQ(submit(clock).spec.reference_nps, 500'000u);
    Version fast;
    fast.name = "fast";
    fast.preset = "default";
    fast.bench = add_version("probe").bench;
    fast.reference_nps = 2'000'000;
    ASSERT_TRUE(transact([&](Storage& st) { return core->add_version(st, fast); }).ok());
    RunSpec of_fast = clock;
    of_fast.test_version = "fast";
    EXPECT_EQ(submit(of_fast).spec.reference_nps, 2'000'000u);
    of_fast.reference_nps = 3'000'000;
    EXPECT_EQ(submit(of_fast).spec.reference_nps, 3'000'000u);

    const size_t runs = storage->list_runs({}, 1000).size();
    RunSpec nodes = spec(RunKind::FixedGames, 20);
    nodes.reference_nps = 1'000'000;
    auto refused = transact([&](Storage& st) { return core->submit_run(st, nodes); });
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("a reference speed scales a clock"),
              std::string_view::npos)
        << refused.status();
    clock.reference_nps = 999;
    refused = transact([&](Storage& st) { return core->submit_run(st, clock); });
    EXPECT_EQ(refused.status().message(),
              "the reference speed must be in 1000..1000000000000 nodes per second, got 999");
    fast.name = "absurd";
    fast.reference_nps = 5;
    EXPECT_EQ(transact([&](Storage& st) { return core->add_version(st, fast); }).status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(storage->list_runs({}, 1000).size(), runs);
}

// A lease of a scaled clock carries the reference and the bounds; its reports must carry the
// worker's speed and the factor from it; the speed is kept. A worker too slow hands the lease
// back with its speed and gets none of the run until its speed is old; a claim of being too
// slow that the bounds do not bear out is refused.
TEST_F(LeaseTest, ScaledClockReportsCarryTheirFactorAndATooSlowWorkerIsLeasedNone) {
    RunSpec clock = spec(RunKind::FixedGames, 20);
    clock.time_control = *parse_time_control("10+0.1");
    clock.reference_nps = 1'000'000;
    const coordinator::Run run = submit(clock);
    auto added = add_worker(1);
    Caller& caller = added.first;
    const int64_t worker = added.second;
    LeaseGrant lease = lease_for(caller, worker);
    EXPECT_EQ(lease.min_clock_factor, core->options().min_clock_factor);
    EXPECT_EQ(lease.max_clock_factor, core->options().max_clock_factor);

    Report r = report(lease, 1, {0});
    EXPECT_NE(send(caller, r).status().message().find("carries no clock factor"),
              std::string_view::npos);
    r.nps = 800'000;
    r.clock_factor = 1.0;  // not 1,000,000 / 800,000
    EXPECT_NE(send(caller, r).status().message().find("is not 1000000 / 800000"),
              std::string_view::npos);
    r.clock_factor = 1.25;
    ASSERT_TRUE(send(caller, r).ok());
    EXPECT_EQ(storage->find_worker_speed(worker, run.test_id)->nps, 800'000u);
    EXPECT_EQ(details_now(run.id).clocks.at(0).last_factor, 1.25);

    Release release;
    release.worker_id = worker;
    release.lease_id = lease.lease.id;
    release.reason = Release::Reason::TooSlow;
    release.measured_nps = 800'000;  // factor 1.25: within the bounds
    EXPECT_EQ(transact([&](Storage& s) { return core->release_lease(s, caller, release); })
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument);
    release.measured_nps = 100'000;  // factor 10: too slow
    ASSERT_TRUE(transact([&](Storage& s) { return core->release_lease(s, caller, release); }).ok());
    EXPECT_EQ(storage->find_worker_speed(worker, run.test_id)->nps, 100'000u);
    auto none = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->has_value()) << "too slow for the only run";
    EXPECT_TRUE(details_now(run.id).lease_failures.empty());
    now += core->options().speed_max_age_ms;
    EXPECT_EQ(lease_for(caller, worker).run.id, run.id) << "an old speed is measured again";
}

}  // namespace
}  // namespace sparring::coordinator::testing
