// Fleet controls on the worker (issue 52, part D), with real coordinator, worker and CLI
// processes: a worker that takes only node-limited runs of at most one thread and plays bob's
// runs first leaves a clock run and a two-thread run waiting with their reasons, plays bob's run
// before the older run of another user, and exits when idle; a worker pinned with
// --cpu-affinity runs there itself, and so do its games and a real UCI engine (Stockfish).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cluster.h"
#include "needs.h"
#include "wait.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

class FleetControlsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Submits a fixed-games run of test against b over gRPC with a token; returns its id.
    int64_t submit(const std::string& token, const std::string& test, uint64_t games,
                   const std::function<void(v1::RunSpec&)>& change = {}) const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        request.mutable_spec()->set_test_version(test);
        if (change) change(*request.mutable_spec());
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Returns a run's waiting reasons over gRPC, as "reason: text", joined with " | ".
    std::string reasons(int64_t id) const {
        std::string out;
        const v1::RunStatus run = cluster->get_run(id);
        for (const v1::WaitingReason& r : run.waiting())
            out += (out.empty() ? "" : " | ") + r.reason() + ": " + r.text();
        return out;
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(FleetControlsTest, AWorkerTakesTheRunsItsControlsAllowItsOwnersFirstAndExitsWhenIdle) {
    const std::string port_file =
        ::testing::TempDir() + "sparring-fleet-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--heartbeat-seconds", "1", "--pairs-per-thread", "1",
                                 "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    std::filesystem::remove(port_file);
    ASSERT_GT(port, 0);
    cluster->add_version("a");
    cluster->add_version("b");
    ASSERT_EQ(cluster->cli({"versions", "add", "sf", "--uci", kStockfish, "--no-options"}).status,
              0);
    const std::string bob = cluster->create_token("user", "bob");
    const int64_t clock = submit(cluster->user_token, "a", 2, [](v1::RunSpec& s) {
        s.mutable_time_control()->mutable_clock()->set_base_ms(1000);
        s.mutable_time_control()->mutable_clock()->set_increment_ms(10);
    });
    const int64_t smp =
        submit(cluster->user_token, "sf", 2, [](v1::RunSpec& s) { s.set_threads(2); });
    const int64_t users = submit(cluster->user_token, "a", 4);
    const int64_t bobs = submit(bob, "a", 4);

    const auto started = std::chrono::steady_clock::now();
    Process& worker =
        cluster->start_worker("picky", 2,
                              {"--uci-engines", kStockfish, "--only-fixed-nodes", "--max-threads",
                               "1", "--prefer-owner", "bob", "--exit-when-idle", "8"});
    EXPECT_EQ(cluster->wait_for_run(bobs, 60s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(cluster->wait_for_run(users, 60s).state(), v1::RUN_STATE_FINISHED);
    // bob's run was leased whole before the older run of the other user was leased at all.
    EXPECT_EQ(
        cluster->query(
            "SELECT count(*) FROM batches WHERE run_id = " + std::to_string(users) +
            " AND id < (SELECT max(id) FROM batches WHERE run_id = " + std::to_string(bobs) + ")"),
        0);
    EXPECT_GT(cluster->query("SELECT count(*) FROM batches WHERE run_id = " + std::to_string(bobs)),
              0);

    // The clock run and the two-thread run wait, saying why and what would serve them.
    const std::string clock_reasons = reasons(clock);
    EXPECT_NE(clock_reasons.find("nodes_only: only node- and depth-limited runs"),
              std::string::npos)
        << clock_reasons;
    const std::string smp_reasons = reasons(smp);
    EXPECT_NE(smp_reasons.find("threads: no runs of 2 threads a game"), std::string::npos)
        << smp_reasons;
    const CommandResult shown = cluster->cli({"show", std::to_string(clock)});
    EXPECT_NE(shown.out.find("start a worker without `--only-fixed-nodes`"), std::string::npos)
        << shown.out;
    const CommandResult workers = cluster->cli({"workers"});
    std::cout << workers.out;
    EXPECT_NE(workers.out.find("only node- and depth-limited runs; bob's runs first; at most 1 "
                               "thread; exits after 8 s idle"),
              std::string::npos)
        << workers.out;
    EXPECT_NE(workers.out.find("takes runs of at most 1 thread a game, the run has 2"),
              std::string::npos)
        << workers.out;
    // REST carries the controls, and the metrics count the runs by the new reasons.
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Result rest =
        http.Get("/api/v1/workers", {{"Authorization", "Bearer " + cluster->user_token}});
    ASSERT_TRUE(rest && rest->status == 200);
    EXPECT_NE(rest->body.find("\"bob\""), std::string::npos) << rest->body;
    EXPECT_NE(rest->body.find("only"), std::string::npos) << rest->body;
    const httplib::Result metrics = http.Get("/metrics");
    ASSERT_TRUE(metrics && metrics->status == 200);
    for (const char* reason : {"nodes_only", "threads"})
        EXPECT_NE(
            metrics->body.find("sparring_runs_waiting{reason=\"" + std::string(reason) + "\"} 1"),
            std::string::npos)
            << reason;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id IN (" +
                             std::to_string(clock) + ", " + std::to_string(smp) + ")"),
              0);

    // Idle from then on: it exits by itself, with status 0, saying why.
    const std::optional<int> status = worker.wait_exit(30s);
    ASSERT_TRUE(status);
    EXPECT_EQ(*status, 0);
    EXPECT_GE(std::chrono::steady_clock::now() - started, 8s);
    EXPECT_EQ(count_in(worker.log_path(), "event=idle_exit"), 1u);
    EXPECT_EQ(count_in(worker.log_path(), "(--exit-when-idle): exiting"), 1u);
}

// Returns the Cpus_allowed_list of a /proc status file.
std::string allowed_list(const std::filesystem::path& status) {
    std::ifstream in(status);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("Cpus_allowed_list:"))
            return line.substr(line.find_first_not_of(" \t", 18));
    return "";
}

TEST_F(FleetControlsTest, CpuAffinityPinsTheWorkerItsGamesAndARealUciEngine) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    if (CPU_COUNT(&allowed) < 2 || !CPU_ISSET(1, &allowed))
        GTEST_SKIP() << "needs CPUs 0 and 1 to pin a worker to one of them";
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--heartbeat-seconds", "1"});
    // Bad values are refused at start with the reason.
    for (const auto& [value, error] :
         {std::pair<std::string, std::string>{"4095", "CPU 4095 is not one this worker may use"},
          {"1-0", "the range '1-0' goes backwards"},
          {"lowpower", "is neither a CPU list"}}) {
        const CommandResult refused =
            cluster->run({binary("worker/sparring-worker"), "--coordinator", cluster->address,
                          "--token", cluster->worker_token, "--cpu-affinity", value});
        EXPECT_NE(refused.status, 0) << value;
        EXPECT_NE(refused.err.find(error), std::string::npos) << refused.err;
    }
    // Stockfish through a script that writes the cores it may run on first.
    const std::string dumps = cluster->dir + "/dumps";
    std::filesystem::create_directories(dumps);
    const std::string probe = cluster->dir + "/sf-probe.sh";
    std::ofstream(probe) << "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status > " << dumps
                         << "/cores.$$\nexec " << kStockfish << " \"$@\"\n";
    chmod(probe.c_str(), 0755);
    ASSERT_EQ(cluster->cli({"versions", "add", "probe", "--uci", probe, "--no-options"}).status, 0);
    cluster->add_version("b");
    const int64_t run = submit(cluster->user_token, "probe", 4);
    Process& worker =
        cluster->start_worker("pinned", 1, {"--uci-engines", probe, "--cpu-affinity", "1"});
    // While it plays, every thread of the worker runs on CPU 1 alone.
    ASSERT_TRUE(wait_until(
        [&] {
            return cluster->query("SELECT count(*) FROM batches WHERE run_id = " +
                                  std::to_string(run)) > 0;
        },
        30s));
    std::set<std::string> worker_lists;
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(worker.pid()) + "/task"))
        worker_lists.insert(allowed_list(task.path() / "status"));
    EXPECT_EQ(worker_lists, (std::set<std::string>{"1"}));
    EXPECT_EQ(cluster->wait_for_run(run, 60s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(count_in(worker.log_path(), "event=cpu_affinity value=1 cores=1"), 1u);
    EXPECT_EQ(count_in(worker.log_path(), "event=game_pinning mode=on pinned=yes cores=1"), 1u);
    // Each Stockfish process ran on CPU 1 alone.
    std::set<std::string> engine_lists;
    for (const auto& entry : std::filesystem::directory_iterator(dumps)) {
        std::string text = slurp(entry.path());
        text = text.substr(text.find(':') + 1);
        engine_lists.insert(
            text.substr(text.find_first_not_of(" \t"),
                        text.find_last_not_of(" \t\n") - text.find_first_not_of(" \t") + 1));
    }
    EXPECT_EQ(engine_lists, (std::set<std::string>{"1"}));
    // `sparring workers` shows the pinning it registered.
    EXPECT_NE(cluster->cli({"workers"}).out.find("cores 1"), std::string::npos);
}

}  // namespace
}  // namespace sparring::testing
