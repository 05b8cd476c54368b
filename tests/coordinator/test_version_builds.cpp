// Builds per instruction set (issue 52, part C), the pure parts: which build a worker plays,
// what the scheduler says when it plays none, the checks of a version's builds, and a SIGILL
// told apart from another end.
#include <gtest/gtest.h>

#include "common/engine_builds.h"
#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/version_builds.h"
#include "match/bench_run.h"

namespace sparring::coordinator {
namespace {

const std::vector<std::string> kV4 = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
const std::vector<std::string> kV3 = {"x86-64", "x86-64-v2", "x86-64-v3"};

TEST(EngineBuilds, AWorkerPlaysTheHighestLevelItsCpuRuns) {
    const std::vector<std::string> builds = {"x86-64-v4", "x86-64-v3", ""};
    EXPECT_EQ(best_build(builds, kV4), 0u);
    EXPECT_EQ(best_build(builds, kV3), 1u);
    EXPECT_EQ(best_build(builds, {}), 2u);  // a worker that reports no levels: portable
    // A build that died of SIGILL there is passed over.
    const std::vector<std::string> refused = {"x86-64-v3"};
    EXPECT_EQ(best_build(builds, kV3, refused), 2u);
    EXPECT_FALSE(best_build(std::vector<std::string>{"x86-64-v4"}, kV3));
    EXPECT_EQ(no_build_text(std::vector<std::string>{"x86-64-v4"}, kV3),
              "needs x86-64-v4; it has x86-64-v3");
    EXPECT_EQ(no_build_text(std::vector<std::string>{"x86-64-v4", ""}, kV3,
                            std::vector<std::string>{"portable"}),
              "needs x86-64-v4; it has x86-64-v3; its portable build died of SIGILL there");
    EXPECT_EQ(build_level_name(""), "portable");
    EXPECT_EQ(build_level_error("x86-64-v3"), "");
    EXPECT_NE(build_level_error("x86-64-v5").find("is no instruction-set level"),
              std::string::npos);
}

TEST(EngineBuilds, ARunWithNoBuildForTheWorkerWaitsForOne) {
    RunCandidate run;
    run.run_id = 7;
    run.version_ids = {1, 2};
    run.uploaded_engines = true;
    run.builds = {{1, "sf-new", {"x86-64-v4"}}, {2, "sf-old", {""}}};
    WorkerProfile worker;
    worker.concurrency = 1;
    worker.memory_mb = 1024;
    worker.accepts_uploaded_engines = true;
    worker.isa_levels = kV3;
    const std::optional<Decline> d = decline(run, worker);
    ASSERT_TRUE(d);
    EXPECT_EQ(std::string(wait_reason_name(d->reason)), "no_build");
    EXPECT_EQ(d->text,
              "no build of version sf-new runs on its CPU (needs x86-64-v4; it has "
              "x86-64-v3)");
    worker.isa_levels = kV4;
    EXPECT_FALSE(decline(run, worker));
    // Its x86-64-v4 build died of SIGILL there: the worker plays the version no more.
    worker.refused_builds = {{1, "x86-64-v4"}};
    ASSERT_TRUE(decline(run, worker));
    EXPECT_EQ(decline(run, worker)->reason, WaitReason::NoBuild);
}

TEST(EngineBuilds, AVersionsBuildsAreChecked) {
    Version v;
    v.kind = Version::Kind::Uploaded;
    v.engine_sha256 = std::string(64, 'a');
    v.engine_level = "x86-64-v4";
    v.engine_builds = {{"", std::string(64, 'b'), 0, false, ""}};
    EXPECT_TRUE(check_engine_builds(v).ok());
    v.engine_builds.push_back({"x86-64-v4", std::string(64, 'c'), 0, false, ""});
    EXPECT_NE(check_engine_builds(v).message().find("two builds for x86-64-v4"), std::string::npos);
    v.engine_builds.back().level = "avx2";
    EXPECT_NE(check_engine_builds(v).message().find("is no instruction-set level"),
              std::string::npos);
    v.engine_builds.back() = {"x86-64-v3", "not-a-hash", 0, false, ""};
    EXPECT_FALSE(check_engine_builds(v).ok());
    v.engine_builds.back() = {"x86-64-v3", std::string(64, 'c'), 0, true, "../x"};
    EXPECT_FALSE(check_engine_builds(v).ok());
}

TEST(EngineBuilds, ASigillIsToldApartFromOtherEnds) {
    EXPECT_TRUE(match::died_of_sigill("exited (killed by signal 4 (Illegal instruction))"));
    // Through bubblewrap or a shell: 128 + 4.
    EXPECT_TRUE(match::died_of_sigill("bench ended with exit status 132"));
    EXPECT_FALSE(match::died_of_sigill("exited (killed by signal 11 (Segmentation fault))"));
    EXPECT_FALSE(match::died_of_sigill("killed by signal 40 (Real-time signal 6)"));
    EXPECT_FALSE(match::died_of_sigill("exit status 1"));
}

}  // namespace
}  // namespace sparring::coordinator
