// Builds per instruction set (issue 52, part C) with real coordinator, worker and CLI processes:
// sparring-engine compiled for x86-64-v4 and for portable x86-64 uploaded as two builds of one
// version, each verified by the CLI's bench; a worker claiming x86-64-v3 plays the portable
// build and a full one the x86-64-v4 build (the report's and the PGN's build say so); a version
// with only an x86-64-v4 build waits on the first with the reason; and builds that die of
// SIGILL (at start, or in their first search) are handed back as needing a CPU the worker
// lacks, never counted as the engine's crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "cluster.h"
#include "worker/cpu_identity.h"

namespace sparring::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::vector<std::string> kAvx2Levels = {"--isa-levels", "x86-64,x86-64-v2,x86-64-v3"};

// Writes an executable script.
void write_script(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    fs::permissions(path, fs::perms::owner_all);
}

class EngineBuildsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        v4 = binary("engine/sparring-engine-x86-64-v4");
        portable = binary("engine/sparring-engine-x86-64");
        if (!fs::exists(v4) || !fs::exists(portable))
            GTEST_SKIP() << "no sparring-engine-x86-64-v4 (the compiler lacks -march=x86-64-v4)";
        const v1::WorkerIdentity machine = worker::detect_identity();
        const auto& levels = machine.isa_levels();
        if (std::find(levels.begin(), levels.end(), "x86-64-v4") == levels.end())
            GTEST_SKIP() << "this machine's CPU lacks x86-64-v4 (AVX-512)";
        cluster = std::make_unique<Cluster>();
    }

    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Starts a worker that accepts uploaded engines, with a cache of its own.
    Process& start_worker(const std::string& name, std::vector<std::string> extra = {}) {
        extra.insert(extra.end(),
                     {"--accept-uploaded-engines", "--cache-dir", cluster->dir + "/cache-" + name});
        return cluster->start_worker(name, 1, extra);
    }

    // Submits a fixed-games run of test against base, 4 games at 300 nodes; returns its id.
    int64_t submit(const std::string& test, const std::string& base) {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(4);
        request.mutable_spec()->set_test_version(test);
        request.mutable_spec()->set_base_version(base);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Returns how many of a run's leases played the test version's build `level`.
    int64_t leases_with_build(int64_t run, const std::string& level) const {
        return cluster->query("SELECT count(*) FROM batches WHERE run_id = " + std::to_string(run) +
                              " AND pairs_reported > 0 AND test_build = '" + level + "'");
    }

    std::unique_ptr<Cluster> cluster;
    std::string v4;
    std::string portable;
};

TEST_F(EngineBuildsTest, EachWorkerPlaysTheBestBuildItsCpuRuns) {
    const CommandResult added =
        cluster->cli({"versions", "add", "eng", "--engine-file", v4 + ":x86-64-v4", "--engine-file",
                      portable, "--no-options"});
    ASSERT_EQ(added.status, 0) << added.err;
    // Both builds ran their bench here, and agree.
    EXPECT_NE(added.err.find("the x86-64-v4 build " + v4 + " has bench"), std::string::npos)
        << added.err;
    EXPECT_NE(added.err.find("the portable build " + portable + " has bench"), std::string::npos)
        << added.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM version_builds"), 1);
    const CommandResult shown = cluster->cli({"versions", "show", "eng"});
    EXPECT_NE(shown.out.find("builds:   x86-64-v4"), std::string::npos) << shown.out;
    ASSERT_EQ(
        cluster->cli({"versions", "add", "base", "--engine-file", portable, "--no-options"}).status,
        0);

    // A worker claiming AVX2 at most plays the portable build.
    Process& avx2 = start_worker("avx2", kAvx2Levels);
    const int64_t first = submit("eng", "base");
    ASSERT_EQ(cluster->wait_for_run(first, 60s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_GT(leases_with_build(first, "portable"), 0);
    EXPECT_EQ(leases_with_build(first, "x86-64-v4"), 0);
    const CommandResult pgn = cluster->cli({"export", std::to_string(first)});
    EXPECT_NE(pgn.out.find("[WhiteBuild \"portable\"]"), std::string::npos) << pgn.out;
    EXPECT_EQ(pgn.out.find("x86-64-v4"), std::string::npos) << pgn.out;

    // A version with only an x86-64-v4 build waits on that worker, which says why.
    ASSERT_EQ(
        cluster
            ->cli({"versions", "add", "v4only", "--engine-file", v4 + ":x86-64-v4", "--no-options"})
            .status,
        0);
    const int64_t waiting = submit("v4only", "base");
    std::string reason;
    ASSERT_TRUE(wait_until(
        [&] {
            const v1::RunStatus run = cluster->get_run(waiting);
            if (run.waiting().empty()) return false;
            reason = run.waiting(0).reason() + ": " + run.waiting(0).text();
            return true;
        },
        10s));
    EXPECT_EQ(reason, "no_build: no build of v4only for its CPU");
    const CommandResult workers = cluster->cli({"workers"});
    EXPECT_NE(workers.out.find("no build of version v4only runs on its CPU (needs x86-64-v4; it "
                               "has x86-64-v3)"),
              std::string::npos)
        << workers.out;
    avx2.signal(SIGTERM);
    ASSERT_TRUE(avx2.wait_exit(15s).has_value());

    // A worker with the whole CPU plays the x86-64-v4 build: the waiting run, and another of
    // the version with two builds.
    start_worker("full");
    const int64_t second = submit("eng", "base");
    ASSERT_EQ(cluster->wait_for_run(waiting, 60s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_GT(leases_with_build(waiting, "x86-64-v4"), 0);
    ASSERT_EQ(cluster->wait_for_run(second, 60s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_GT(leases_with_build(second, "x86-64-v4"), 0);
    EXPECT_EQ(leases_with_build(second, "portable"), 0);
    const CommandResult played = cluster->cli({"export", std::to_string(second)});
    EXPECT_NE(played.out.find("Build \"x86-64-v4\"]"), std::string::npos) << played.out;
}

TEST_F(EngineBuildsTest, ABuildThatDiesOfSigillNeedsACpuAndIsNoCrash) {
    // The bench signature every build prints.
    const CommandResult bench = cluster->run({portable, "bench"});
    const size_t at = bench.out.rfind("Nodes searched: ");
    ASSERT_NE(at, std::string::npos) << bench.out;
    const std::string nodes = std::to_string(std::stoull(bench.out.substr(at + 16)));
    // Two builds for CPUs this one is not, as a worker finds out: the x86-64-v3 one dies of
    // SIGILL as it starts, the x86-64-v2 one answers `uci` and its bench but dies in its first
    // search.
    const std::string at_start = cluster->dir + "/dies-at-start.sh";
    write_script(at_start, "#!/bin/sh\nkill -ILL $$\n");
    const std::string at_search = cluster->dir + "/dies-at-search.sh";
    write_script(at_search,
                 "#!/bin/sh\n"
                 "if [ \"$1\" = bench ]; then echo 'Nodes searched: " +
                     nodes +
                     "'; exit 0; fi\n"
                     "while read -r line; do\n"
                     "  case \"$line\" in\n"
                     "    uci) echo 'id name dies-at-search'; echo uciok ;;\n"
                     "    isready) echo readyok ;;\n"
                     "    go*) kill -ILL $$ ;;\n"
                     "    quit) exit 0 ;;\n"
                     "  esac\n"
                     "done\n");
    const CommandResult added = cluster->cli(
        {"versions", "add", "eng", "--engine-file", at_start + ":x86-64-v3", "--engine-file",
         at_search + ":x86-64-v2", "--engine-file", portable, "--no-options"});
    ASSERT_EQ(added.status, 0) << added.err;
    // Where the CLI cannot run a build, it says so and verifies the others.
    EXPECT_NE(added.err.find("the x86-64-v3 build " + at_start +
                             " was not verified here: it needs a CPU this machine lacks"),
              std::string::npos)
        << added.err;
    EXPECT_NE(added.err.find("the portable build " + portable + " has bench " + nodes),
              std::string::npos)
        << added.err;
    ASSERT_EQ(
        cluster->cli({"versions", "add", "base", "--engine-file", portable, "--no-options"}).status,
        0);

    Process& worker = start_worker("w");
    const int64_t run = submit("eng", "base");
    ASSERT_EQ(cluster->wait_for_run(run, 60s).state(), v1::RUN_STATE_FINISHED);
    // Each SIGILL handed its lease back as a build this worker's CPU cannot run; the portable
    // build played the games, and no game was counted as a crash or a fault.
    EXPECT_EQ(cluster->query("SELECT count(*) FROM build_refusals WHERE level = 'x86-64-v3'"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM build_refusals WHERE level = 'x86-64-v2'"), 1);
    EXPECT_EQ(leases_with_build(run, "portable"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE ending = 'crash'"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM lease_failures"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 4);
    EXPECT_GT(count_in(worker.log_path(), "needs a CPU w lacks"), 0);
    EXPECT_GT(count_in(worker.log_path(), "build of version 'eng' needs a CPU this worker lacks"),
              0);
}

}  // namespace
}  // namespace sparring::testing
