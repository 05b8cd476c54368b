// Kinds return effects and the core applies them: a version under a free name, a run that
// tests it, their record in the kind's state, and, when the run cannot start, the run that
// says why (noted on a finished run, or stopped).
#include <gtest/gtest.h>

#include "coordinator/domain/run_kind.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

class EffectsTest : public CoreFixture {
  protected:
    void SetUp() override {
        add_version("test", 300);
        add_version("base");
    }

    // Applies effects in a transaction of their own.
    void apply(KindEffects effects) {
        ASSERT_TRUE(transact([&](Storage& s) {
                        core->apply(s, std::move(effects));
                        return absl::OkStatus();
                    }).ok());
    }

    coordinator::Run run(int64_t id) {
        return *transact([&](Storage& s) { return core->get_run(s, id); });
    }
};

TEST_F(EffectsTest, AVersionIsAddedUnderAFreeNameAndTheStartedRunTestsIt) {
    KindEffects effects;
    Version v;
    v.name = "test";  // taken: the version becomes test.2
    v.preset = "default";
    v.bench = 123456;
    effects.add_version = v;
    effects.start_run = spec(RunKind::Regression, 100, "", "base");
    std::string recorded_version;
    int64_t recorded_run = 0;
    effects.record = [&](Storage&, const std::string& version, int64_t run_id) {
        recorded_version = version;
        recorded_run = run_id;
    };
    apply(effects);
    EXPECT_EQ(recorded_version, "test.2");
    ASSERT_GT(recorded_run, 0);
    EXPECT_EQ(run(recorded_run).spec.test_version, "test.2");
    EXPECT_EQ(run(recorded_run).state, RunState::Active);
}

TEST_F(EffectsTest, ARunThatCannotStartIsNotedOnTheFinishedRunAndNothingIsRecorded) {
    coordinator::Run ended = submit(spec(RunKind::Regression, 100));
    ASSERT_TRUE(transact([&](Storage& s) {
                    core->end_run(s, ended, RunState::Finished, "completed");
                    return absl::OkStatus();
                }).ok());
    KindEffects effects;
    effects.start_run = spec(RunKind::Regression, 100, "missing", "base");
    bool recorded = false;
    effects.record = [&](Storage&, const std::string&, int64_t) { recorded = true; };
    effects.failure = {ended.id, false, "verification not started"};
    apply(effects);
    EXPECT_FALSE(recorded);
    const coordinator::Run after = run(ended.id);
    EXPECT_EQ(after.state, RunState::Finished);
    EXPECT_EQ(after.result.rfind("completed; verification not started: unknown test version "
                                 "'missing'",
                                 0),
              0u)
        << after.result;
}

TEST_F(EffectsTest, ARunThatCannotStartStopsTheActiveRunThatAskedWhenItSaysSo) {
    const coordinator::Run parent = submit(spec(RunKind::Regression, 100));
    KindEffects effects;
    effects.start_run = spec(RunKind::Regression, 100, "missing", "base");
    effects.failure = {parent.id, true, "generation 1 could not go on"};
    apply(effects);
    const coordinator::Run after = run(parent.id);
    EXPECT_EQ(after.state, RunState::Stopped);
    EXPECT_EQ(after.result.rfind("generation 1 could not go on: unknown test version", 0), 0u)
        << after.result;
}

TEST_F(EffectsTest, OnlyActiveRunsAreEnded) {
    coordinator::Run first = submit(spec(RunKind::Regression, 100));
    const coordinator::Run second = submit(spec(RunKind::Regression, 100));
    ASSERT_TRUE(transact([&](Storage& s) {
                    core->end_run(s, first, RunState::Finished, "completed");
                    return absl::OkStatus();
                }).ok());
    KindEffects effects;
    effects.end_runs = {{first.id, RunState::Stopped, "stopped with chain 9"},
                        {second.id, RunState::Stopped, "stopped with chain 9"}};
    apply(effects);
    EXPECT_EQ(run(first.id).state, RunState::Finished);
    EXPECT_EQ(run(first.id).result, "completed");
    EXPECT_EQ(run(second.id).state, RunState::Stopped);
    EXPECT_EQ(run(second.id).result, "stopped with chain 9");
}

}  // namespace
}  // namespace sparring::coordinator::testing
