// The worker against hostile or broken input, with real coordinator, worker and engine
// processes on 127.0.0.1: an engine child sees no token, a hung bench is killed and counted
// as a mismatch, a lease too large to read is handed back, and a run whose leases keep
// failing is backed off instead of leased thousands of times.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class WorkerSecurityTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Writes an executable engine script into the cluster's directory; returns its path.
    std::string engine_script(const std::string& name, const std::string& body) const {
        const std::string path = cluster->dir + "/" + name + ".sh";
        std::ofstream(path) << "#!/bin/sh\n"
                            << body << "\nexec " << binary("engine/sparring-engine") << " \"$@\"\n";
        chmod(path.c_str(), 0755);
        return path;
    }

    // Submits a fixed-games run of test against b; returns its id.
    int64_t submit(const std::string& test, uint64_t games) const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        request.mutable_spec()->set_test_version(test);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Waits up to timeout for a query to give a positive number.
    bool eventually(const std::string& sql, std::chrono::seconds timeout) const {
        const auto until = std::chrono::steady_clock::now() + timeout;
        while (cluster->query(sql) <= 0) {
            if (std::chrono::steady_clock::now() > until) return false;
            std::this_thread::sleep_for(100ms);
        }
        return true;
    }

    // Returns the text of a file.
    static std::string read(const std::string& path) {
        std::ifstream in(path);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    // Writes an engine script that dumps its working directory and environment into
    // dumps_dir(), one file per engine process; returns its path.
    std::string probe_engine(const std::string& name) const {
        std::filesystem::create_directories(dumps_dir());
        return engine_script(name, "{ echo \"cwd=$(pwd)\"; env; } > " + dumps_dir() + "/engine.$$");
    }

    std::string dumps_dir() const { return cluster->dir + "/dumps"; }

    // Starts a worker that takes its token from its environment, as a container would give it.
    std::unique_ptr<Process> start_worker_with_token_in_environment(std::vector<std::string> flags,
                                                                    const std::string& name) const {
        setenv("SPARRING_TOKEN", cluster->worker_token.c_str(), 1);
        setenv("SPARRING_COORDINATOR", cluster->address.c_str(), 1);
        flags.insert(flags.begin(), binary("worker/sparring-worker"));
        auto worker = std::make_unique<Process>(flags, cluster->dir + "/worker-" + name + ".log");
        unsetenv("SPARRING_TOKEN");
        unsetenv("SPARRING_COORDINATOR");
        return worker;
    }

    // Checks what each probe engine dumped: no token, no SPARRING_ variable, a scratch
    // working directory of its own that is gone afterwards; returns those directories.
    std::vector<std::string> expect_engines_confined() const {
        std::vector<std::string> dirs;
        for (const auto& entry : std::filesystem::directory_iterator(dumps_dir())) {
            const std::string text = read(entry.path());
            EXPECT_EQ(text.find(cluster->worker_token), std::string::npos) << text;
            EXPECT_EQ(text.find("SPARRING_"), std::string::npos) << text;
            EXPECT_NE(text.find("\nPATH="), std::string::npos) << text;
            const size_t cwd = text.find("cwd=");
            EXPECT_EQ(cwd, 0u) << text;
            if (cwd != 0) continue;
            const std::string dir = text.substr(4, text.find('\n') - 4);
            EXPECT_NE(dir.find("sparring-engine-"), std::string::npos) << dir;
            EXPECT_FALSE(std::filesystem::exists(dir)) << dir;  // removed after the engine
            dirs.push_back(dir);
        }
        EXPECT_GE(dirs.size(), 1u);
        return dirs;
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(WorkerSecurityTest, AnEngineSeesNoTokenNoSparringVariableAndAScratchDirectory) {
    cluster = std::make_unique<Cluster>();
    const std::string probe = probe_engine("probe");
    ASSERT_EQ(cluster->cli({"versions", "add", "a", "--uci", probe, "--option", "Hash=1"}).status,
              0);
    cluster->add_version("b");
    const int64_t run = submit("a", 4);
    const auto worker = start_worker_with_token_in_environment(
        {"--name", "confined", "--uci-engines", probe}, "confined");
    EXPECT_EQ(cluster->wait_for_run(run, 120s).state(), v1::RUN_STATE_FINISHED);
    expect_engines_confined();
}

TEST_F(WorkerSecurityTest, AnUploadedEngineIsConfinedLikeAnyExternalEngine) {
    cluster = std::make_unique<Cluster>();
    const std::string probe = probe_engine("uploaded-probe");
    const CommandResult added =
        cluster->cli({"versions", "add", "a", "--engine-file", probe, "--option", "Hash=1"});
    ASSERT_EQ(added.status, 0) << added.err;
    cluster->add_version("b");
    const int64_t run = submit("a", 4);
    const std::string cache = cluster->dir + "/cache";
    const auto worker = start_worker_with_token_in_environment(
        {"--name", "fetcher", "--accept-uploaded-engines", "--cache-dir", cache}, "fetcher");
    EXPECT_EQ(cluster->wait_for_run(run, 120s).state(), v1::RUN_STATE_FINISHED);
    for (const std::string& dir : expect_engines_confined())
        EXPECT_EQ(dir.find(cache), std::string::npos) << dir;  // not run beside the cached file
}

TEST_F(WorkerSecurityTest, AHungBenchIsKilledRecordedAsAMismatchAndTheWorkerGoesOn) {
    cluster = std::make_unique<Cluster>();
    const std::string hung = engine_script("hung", "if [ \"$1\" = bench ]; then sleep 1000; fi");
    ASSERT_EQ(cluster->cli({"versions", "add", "a", "--uci", hung, "--bench", "12345"}).status, 0);
    cluster->add_version("b");
    cluster->add_version("c", "KnightValueMg=300");
    const int64_t hung_run = submit("a", 2);
    cluster->start_worker("patient", 1, {"--uci-engines", hung, "--bench-timeout-seconds", "1"});
    ASSERT_TRUE(eventually("SELECT count(*) FROM bench_mismatches WHERE computed = 0", 30s));
    const CommandResult show = cluster->cli({"show", std::to_string(hung_run)});
    EXPECT_NE(show.out.find("bench mismatch:"), std::string::npos) << show.out;
    // The same worker then plays a run it can play.
    const int64_t next = submit("c", 2);
    EXPECT_EQ(cluster->wait_for_run(next, 120s).state(), v1::RUN_STATE_FINISHED);
}

TEST_F(WorkerSecurityTest, ALeaseLargerThanTheReceiveLimitIsHandedBackNotRetried) {
    cluster = std::make_unique<Cluster>();
    cluster->add_version("a");
    cluster->add_version("b");
    submit("a", 20);
    // Two built-in versions' parameter sets alone exceed 1 KiB.
    Process& worker = cluster->start_worker("small", 1, {"--max-lease-kb", "1"});
    ASSERT_TRUE(eventually("SELECT count(*) FROM batches WHERE state = 'released'", 30s));
    std::this_thread::sleep_for(5s);
    EXPECT_FALSE(worker.wait_exit(0ms));  // still running
    EXPECT_LE(cluster->query("SELECT count(*) FROM batches"), 8);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'leased'"), 0);
    EXPECT_NE(read(worker.log_path()).find("receive limit"), std::string::npos);
}

TEST_F(WorkerSecurityTest, ARunWhoseLeasesKeepFailingIsBackedOffWhileOthersArePlayed) {
    cluster = std::make_unique<Cluster>();
    const std::string vanishing = engine_script("vanishing", "");
    ASSERT_EQ(cluster->cli({"versions", "add", "a", "--uci", vanishing, "--bench", "5"}).status, 0);
    cluster->add_version("b");
    cluster->add_version("c", "KnightValueMg=300");
    Process& worker = cluster->start_worker("flaky", 1, {"--uci-engines", vanishing});
    const auto until = std::chrono::steady_clock::now() + 30s;
    while (read(worker.log_path()).find("registered") == std::string::npos &&
           std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(50ms);
    // Offered at registration, gone now: every lease of its run fails on this worker.
    std::filesystem::remove(vanishing);
    const int64_t failing = submit("a", 200);
    ASSERT_TRUE(eventually("SELECT count(*) FROM batches WHERE state = 'released'", 30s));
    const int64_t other = submit("c", 2);
    EXPECT_EQ(cluster->wait_for_run(other, 120s).state(), v1::RUN_STATE_FINISHED);
    std::this_thread::sleep_for(6s);
    const int64_t leases =
        cluster->query("SELECT count(*) FROM batches WHERE run_id = " + std::to_string(failing));
    EXPECT_GE(leases, 1);
    EXPECT_LE(leases, 8);  // without the backoff: thousands in this time
    EXPECT_NE(read(worker.log_path()).find("failed leases in a row"), std::string::npos);
}

TEST_F(WorkerSecurityTest, WorkerAndCliReadTheirTokensFromFiles) {
    cluster = std::make_unique<Cluster>();
    const std::string worker_file = cluster->dir + "/worker.token";
    const std::string user_file = cluster->dir + "/user.token";
    std::ofstream(worker_file) << cluster->worker_token << "\n";
    std::ofstream(user_file) << cluster->user_token << "\n";
    for (const std::string& file : {worker_file, user_file})
        std::filesystem::permissions(
            file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    Process from_file({binary("worker/sparring-worker"), "--coordinator", cluster->address,
                       "--token-file", worker_file, "--name", "filed"},
                      cluster->dir + "/worker-filed.log");
    Process& from_argv = cluster->start_worker("argv", 1);
    const CommandResult listed = cluster->run({binary("cli/sparring"), "workers", "--coordinator",
                                               cluster->address, "--token-file", user_file});
    EXPECT_EQ(listed.status, 0) << listed.err;
    ASSERT_TRUE(eventually("SELECT count(*) FROM workers WHERE name = 'filed'", 30s));
    EXPECT_EQ(read(from_file.log_path()).find("token_on_command_line"), std::string::npos);
    EXPECT_NE(read(from_argv.log_path()).find("token_on_command_line"), std::string::npos);
    // Both at once is a mistake on the command line.
    const CommandResult both =
        cluster->run({binary("worker/sparring-worker"), "--coordinator", cluster->address,
                      "--token-file", worker_file, "--token", cluster->worker_token});
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

TEST_F(WorkerSecurityTest, WorkersPrintsAHostileWorkerNameEscaped) {
    cluster = std::make_unique<Cluster>();
    v1::RegisterRequest request;
    request.set_name("rack\x1b[31m\x1b[2J\nforged 99 active");
    request.set_cores(1);
    request.set_memory_mb(1024);
    request.set_concurrency(1);
    v1::RegisterResponse response;
    const grpc::Status status = cluster->workers()->Register(
        Cluster::context(cluster->worker_token).get(), request, &response);
    // A coordinator may refuse such a name outright; if it takes it, the CLI must not print
    // it raw.
    if (!status.ok()) {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        return;
    }
    const CommandResult workers = cluster->cli({"workers"});
    ASSERT_EQ(workers.status, 0) << workers.err;
    EXPECT_EQ(workers.out.find('\x1b'), std::string::npos) << workers.out;
    EXPECT_NE(workers.out.find("rack\\e[31m\\e[2J\\nforged 99 active"), std::string::npos)
        << workers.out;
    EXPECT_EQ(std::count(workers.out.begin(), workers.out.end(), '\n'), 2) << workers.out;
}

}  // namespace
}  // namespace sparring::testing
