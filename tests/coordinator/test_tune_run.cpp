// SPSA tuning runs in the core: defaults of a tuning spec, the perturbations a lease carries,
// and the step accounting: duplicated, out-of-order and expired reports neither skip nor
// repeat a step; a finished run with --verify chains its regression run.
#include <gtest/gtest.h>

#include "coordinator/domain/version_options.h"
#include "coordinator/kinds/tune_run.h"
#include "engine/params.h"
#include "fixture.h"
#include "match/bench_cache.h"

namespace sparring::coordinator::testing {
namespace {

class TuneRunTest : public CoreFixture {
  protected:
    void SetUp() override { add_version("base", 250); }

    // Returns a tuning spec of KnightValueMg and BishopValueEg on the base version.
    RunSpec tune_spec(uint64_t games) const {
        RunSpec s = spec(RunKind::Tune, games, "base", "base");
        s.tune.params = {{"KnightValueMg", {}, {}, {}, {}, 0.05},
                         {"BishopValueEg", {}, {}, {}, {}, 0.05}};
        return s;
    }

    // Requests work for a worker and returns the lease, failing the test if there is none.
    LeaseGrant lease_for(const Caller& caller, int64_t worker) {
        auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
        EXPECT_TRUE(lease.ok() && lease->has_value()) << lease.status();
        return lease.ok() && lease->has_value() ? **lease : LeaseGrant{};
    }

    // Sends a report in its own transaction.
    absl::StatusOr<ReportAck> send(const Caller& caller, const Report& r) {
        return transact([&](Storage& s) { return core->report_results(s, caller, r); });
    }

    // Returns a tuning run's stored state.
    TuneState state(int64_t run_id) {
        storage->begin(false);
        TuneState t = *storage->find_tune(run_id);
        storage->commit();
        return t;
    }

    // Submits a run that may be refused.
    absl::StatusOr<coordinator::Run> try_submit(const RunSpec& s) {
        return transact([&](Storage& st) { return core->submit_run(st, s); });
    }
};

// Applies pairs (indices of a lease, W - L = 1 each: a win and a draw) to theta by hand.
void apply_by_hand(const TuneState& t, const coordinator::Run& run, const LeaseGrant& lease,
                   const std::vector<uint32_t>& indices, std::vector<double>& theta) {
    for (uint32_t i : indices) {
        const int64_t k = int64_t(lease.lease.first_pair + i + 1);
        const spsa::Step step = spsa::make_step(t.params, theta, tune_schedule(run), k, t.seed);
        spsa::apply_result(t.params, step, 1, theta);
    }
}

TEST_F(TuneRunTest, ParametersDefaultFromTheRegistryAndTheBaseVersion) {
    const coordinator::Run run = submit(tune_spec(40));
    const TuneState t = state(run.id);
    ASSERT_EQ(t.params.size(), 2u);
    EXPECT_EQ(t.params[0].name, "KnightValueMg");
    EXPECT_DOUBLE_EQ(t.params[0].start, 250);  // the base version's value
    EXPECT_DOUBLE_EQ(t.params[0].min, 150);    // the registry's bounds
    EXPECT_DOUBLE_EQ(t.params[0].max, 900);
    EXPECT_DOUBLE_EQ(t.params[0].c_end, 37.5);  // (max - min) / 20
    EXPECT_DOUBLE_EQ(t.params[0].r_end, 0.05);
    EXPECT_DOUBLE_EQ(t.params[1].start, 315);  // BishopValueEg's default
    EXPECT_EQ(t.theta, (std::vector<double>{250, 315}));
    EXPECT_EQ(t.pairs_applied, 0);
    storage->begin(false);
    const auto points = storage->list_tune_points(run.id);
    storage->commit();
    ASSERT_EQ(points.size(), 1u);
    EXPECT_EQ(points[0].pairs, 0);
    EXPECT_EQ(points[0].values, t.theta);
}

TEST_F(TuneRunTest, MalformedTuningSpecsAreRejected) {
    RunSpec s = tune_spec(40);
    s.tune.params[0].name = "KnightValue";
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    s = tune_spec(40);
    s.tune.params[1].name = "KnightValueMg";
    EXPECT_NE(try_submit(s).status().message().find("twice"), std::string::npos);
    s = tune_spec(40);
    s.tune.params[0].min = 100;  // below the registry's 150
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    s = tune_spec(40);
    add_version("other");
    s.test_version = "other";
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    s = tune_spec(40);
    s.tune.params.clear();
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    s = tune_spec(40);
    s.tune.verify = true;
    s.tune.verify_games = 7;
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    s = spec(RunKind::FixedGames, 10, "base", "base");
    s.tune.params = tune_spec(40).tune.params;
    EXPECT_EQ(try_submit(s).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(core->list_runs(*storage, {}, 0).size(), 0u);
}

// Each pair of a lease carries step k = pair + 1 drawn from the values at lease time, and a
// re-sent lease carries the same values even after the run's values moved.
TEST_F(TuneRunTest, LeasesCarryThePerturbationOfEachPair) {
    const coordinator::Run run = submit(tune_spec(40));
    const TuneState start = state(run.id);
    auto [caller, worker] = add_worker(2);
    const LeaseGrant lease = lease_for(caller, worker);
    ASSERT_EQ(lease.tune_steps.size(), 4u);
    EXPECT_EQ(lease.tune_names, (std::vector<std::string>{"KnightValueMg", "BishopValueEg"}));
    for (uint32_t i = 0; i < 4; ++i) {
        const spsa::Step expected =
            spsa::make_step(start.params, start.theta, tune_schedule(run), i + 1, start.seed);
        EXPECT_EQ(lease.tune_steps[i].k, int64_t(i + 1));
        EXPECT_EQ(lease.tune_steps[i].plus, expected.plus);
        EXPECT_EQ(lease.tune_steps[i].minus, expected.minus);
        EXPECT_NE(lease.tune_steps[i].plus, lease.tune_steps[i].minus);
    }
    EXPECT_EQ(lease.test.name, "base");
    EXPECT_EQ(lease.base.name, "base");

    auto [other_caller, other] = add_worker(2);
    const LeaseGrant second = lease_for(other_caller, other);
    ASSERT_TRUE(send(other_caller, report(second, 1, {0, 1, 2, 3})).ok());
    ASSERT_NE(state(run.id).theta, start.theta);
    const LeaseGrant again = lease_for(caller, worker);
    ASSERT_EQ(again.lease.id, lease.lease.id);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(again.tune_steps[i].plus, lease.tune_steps[i].plus);
}

// Reports come back out of order, one twice, and one lease expires and is played again by
// another worker: every step is applied exactly once, in the order the reports were counted.
TEST_F(TuneRunTest, DuplicatedOutOfOrderAndExpiredReportsNeitherSkipNorRepeatSteps) {
    const coordinator::Run run = submit(tune_spec(24));  // 12 pairs
    const TuneState start = state(run.id);
    auto [ca, a] = add_worker(2);
    auto [cb, b] = add_worker(2);
    auto [cc, c] = add_worker(2);
    const LeaseGrant la = lease_for(ca, a);  // pairs 0-3: steps 1-4
    const LeaseGrant lb = lease_for(cb, b);  // pairs 4-7: steps 5-8
    const LeaseGrant lc = lease_for(cc, c);  // pairs 8-11: steps 9-12
    ASSERT_EQ(lb.lease.first_pair, 4u);
    std::vector<double> theta = start.theta;

    // b reports before a, and its report arrives twice.
    ASSERT_TRUE(send(cb, report(lb, 1, {3, 1})).ok());
    apply_by_hand(start, run, lb, {3, 1}, theta);
    auto again = send(cb, report(lb, 1, {3, 1}));
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->duplicate);
    EXPECT_EQ(state(run.id).theta, theta);
    ASSERT_TRUE(send(ca, report(la, 1, {0, 1, 2, 3})).ok());
    apply_by_hand(start, run, la, {0, 1, 2, 3}, theta);
    ASSERT_TRUE(send(cb, report(lb, 2, {0, 2})).ok());
    apply_by_hand(start, run, lb, {0, 2}, theta);
    // An altered retry is refused and changes nothing.
    EXPECT_FALSE(send(cb, report(lb, 2, {0, 2}, Outcome::Loss)).ok());
    EXPECT_EQ(state(run.id).theta, theta);

    // c reports half its lease, then goes silent: the rest returns to the pool with its steps.
    ASSERT_TRUE(send(cc, report(lc, 1, {1})).ok());
    apply_by_hand(start, run, lc, {1}, theta);
    now += 20'000;
    EXPECT_EQ(*transact([&](Storage& s) { return absl::StatusOr<int>(core->expire_leases(s)); }),
              1);
    EXPECT_FALSE(send(cc, report(lc, 2, {0})).ok());  // too late: not counted
    auto [cd, d] = add_worker(2);
    const LeaseGrant ld = lease_for(cd, d);
    EXPECT_EQ(ld.lease.first_pair, 8u);  // pair 8, then 10-11 in the next lease
    ASSERT_EQ(ld.tune_steps.front().k, 9);
    ASSERT_TRUE(send(cd, report(ld, 1, {0})).ok());
    apply_by_hand(start, run, ld, {0}, theta);
    const LeaseGrant le = lease_for(cd, d);
    EXPECT_EQ(le.lease.first_pair, 10u);
    ASSERT_TRUE(send(cd, report(le, 1, {0, 1})).ok());
    apply_by_hand(start, run, le, {0, 1}, theta);

    const TuneState end = state(run.id);
    EXPECT_EQ(end.pairs_applied, 12);
    ASSERT_EQ(end.theta.size(), theta.size());
    for (size_t i = 0; i < theta.size(); ++i) EXPECT_NEAR(end.theta[i], theta[i], 1e-9);
    const coordinator::Run finished =
        *transact([&](Storage& s) { return core->get_run(s, run.id); });
    EXPECT_EQ(finished.state, RunState::Finished);
    EXPECT_EQ(finished.counts.pairs, 12);
    storage->begin(false);
    const auto points = storage->list_tune_points(run.id);
    storage->commit();
    EXPECT_EQ(points.size(), 7u);  // the start and one point per counted report (6)
    EXPECT_EQ(points.back().pairs, 12);
}

// A finished tuning run with verification makes a version of its values and starts a
// regression run of that version against the base.
TEST_F(TuneRunTest, FinishedTuningChainsItsVerification) {
    RunSpec s = tune_spec(8);
    s.tune.verify = true;
    s.tune.verify_games = 100;
    s.adjudication.draw = match::DrawRule{30, 6, 15};
    s.adjudication.resign = match::ResignRule{4, 500, false};
    s.adjudication.max_plies = 300;
    const coordinator::Run run = submit(s);
    auto [caller, worker] = add_worker(2);
    const LeaseGrant lease = lease_for(caller, worker);
    ASSERT_TRUE(send(caller, report(lease, 1, {0, 1, 2, 3})).ok());
    const TuneState t = state(run.id);
    EXPECT_EQ(t.tuned_version, "base-tuned-" + std::to_string(run.id));
    ASSERT_GT(t.verify_run_id, 0);
    RunDetails verify_details;
    const coordinator::Run verify =
        *transact([&](Storage& st) { return core->get_run(st, t.verify_run_id, &verify_details); });
    EXPECT_EQ(verify.spec.kind, RunKind::Regression);
    EXPECT_EQ(verify.spec.test_version, t.tuned_version);
    EXPECT_EQ(verify.spec.base_version, "base");
    EXPECT_EQ(verify.spec.games, 100u);
    // Its games are adjudicated as the tuning run's were.
    ASSERT_TRUE(verify.spec.adjudication.draw && verify.spec.adjudication.resign);
    EXPECT_EQ(verify.spec.adjudication.draw->move_number, 30);
    EXPECT_EQ(verify.spec.adjudication.draw->score_cp, 15);
    EXPECT_EQ(verify.spec.adjudication.resign->score_cp, 500);
    EXPECT_FALSE(verify.spec.adjudication.resign->two_sided);
    EXPECT_EQ(verify.spec.adjudication.max_plies, 300);
    EXPECT_EQ(verify_details.verifies_run_id, run.id);
    EXPECT_EQ(verify.state, RunState::Active);
    const Version tuned =
        *transact([&](Storage& st) { return core->get_version(st, t.tuned_version); });
    EXPECT_EQ(tuned.overrides.at("KnightValueMg"), int(std::lround(t.theta[0])));
    EXPECT_EQ(tuned.overrides.at("BishopValueEg"), int(std::lround(t.theta[1])));
    EXPECT_GT(tuned.bench, 0u);
}

// A version's options, whatever its engine: a built-in version's parameters are spin options
// with the registry's bounds and the version's values as defaults; an external version's are
// its engine's, with the values the version sets (when the engine takes them) as defaults.
TEST(VersionOptions, BuiltInParametersAndAnEnginesOptionsWithTheVersionsValues) {
    Version builtin;
    builtin.params_json = R"({"KnightValueMg": 345})";
    const std::vector<match::EngineOption> params = version_options(builtin);
    ASSERT_EQ(params.size(), param_registry().size());
    const match::EngineOption* knight = find_option(params, "knightvaluemg");
    ASSERT_NE(knight, nullptr);
    EXPECT_EQ(*knight, (match::EngineOption{"KnightValueMg", "spin", "345", 150, 900}));

    Version sf;
    sf.kind = Version::Kind::Uci;
    sf.options = {{"Hash", "spin", "16", 1, 1024},
                  {"Skill Level", "spin", "20", 0, 20},
                  {"Move Overhead", "spin", "10", 0, 5000},
                  {"Ponder", "check", "false", 0, 0}};
    sf.uci_options = {{"skill  level", "7"}, {"Move Overhead", "9000"}};
    const std::vector<match::EngineOption> options = version_options(sf);
    ASSERT_EQ(options.size(), 4u);
    EXPECT_EQ(find_option(options, "Skill Level")->default_value, "7");
    EXPECT_EQ(find_option(options, "Move Overhead")->default_value, "10");  // 9000: out of range
    EXPECT_EQ(find_option(options, "Hash")->default_value, "16");
    EXPECT_EQ(find_option(options, "Threads"), nullptr);
}

// The version a tuning run's values make: a built-in base gets them rounded as overrides and
// the bench signature they give; an external engine gets them among its UCI options, each
// replacing the base's spelling of the option.
TEST(VersionOptions, ValuesSetOnABuiltInOrAnExternalVersion) {
    Version builtin;
    builtin.name = "base";
    builtin.preset = "seed";
    builtin.overrides = {{"PawnValueMg", 90}};
    builtin.hash_mb = 64;
    const Version tuned = with_option_values(builtin, {{"KnightValueMg", 330.6}});
    EXPECT_TRUE(tuned.name.empty());
    EXPECT_EQ(tuned.preset, "seed");
    EXPECT_EQ(tuned.hash_mb, 64);
    EXPECT_EQ(tuned.overrides,
              (std::map<std::string, int>{{"PawnValueMg", 90}, {"KnightValueMg", 331}}));
    ParamSet params = *ParamSet::preset("seed");
    params.set("PawnValueMg", 90);
    params.set("KnightValueMg", 331);
    EXPECT_EQ(tuned.bench, builtin_bench(params).nodes);

    Version sf;
    sf.kind = Version::Kind::Uploaded;
    sf.name = "sf";
    sf.engine_sha256 = "ab";
    sf.uci_options = {{"skill level", "3"}, {"Hash", "16"}};
    sf.bench = 5;
    const Version mine = with_option_values(sf, {{"Skill Level", 11.4}});
    EXPECT_EQ(mine.kind, Version::Kind::Uploaded);
    EXPECT_EQ(mine.engine_sha256, "ab");
    EXPECT_EQ(mine.bench, 5u);
    EXPECT_EQ(mine.uci_options,
              (std::map<std::string, std::string>{{"Skill Level", "11"}, {"Hash", "16"}}));
}

}  // namespace
}  // namespace sparring::coordinator::testing
