// Worker identity (issue 52, part A) with real coordinator, worker and CLI processes: a worker
// that claims x86-64-v3 on this machine registers its CPU, levels, cores, OS and machine id;
// `sparring workers` and REST show them and its CPU class, which the coordinator records with
// the leases it plays; a worker claiming a level its CPU lacks does not start; and forged
// registrations with hostile or oversized identities are refused and change nothing, while an
// unknown level from a newer worker is dropped.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster.h"
#include "wait.h"
#include "worker/cpu_identity.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;
using test_support::wait_until;

class WorkerIdentityTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        if (!port_file.empty()) std::filesystem::remove(port_file);
    }

    std::unique_ptr<Cluster> cluster;
    std::string port_file;
};

TEST_F(WorkerIdentityTest, AWorkerShowsItsMachineAndClassAndItsLeasesRecordTheClass) {
    // What this machine is, and the levels the worker claims: one below its highest, as an
    // operator keeps an AVX-512 machine on AVX2 builds.
    v1::WorkerIdentity expected = worker::detect_identity();
    const std::vector<std::string> levels(expected.isa_levels().begin(),
                                          expected.isa_levels().end());
    if (levels.size() < 2) GTEST_SKIP() << "needs a CPU of two instruction-set levels or more";
    const std::string claim = levels[levels.size() - 2];
    expected.clear_isa_levels();
    for (const std::string& level : worker::claimed_isa_levels(levels, claim))
        expected.add_isa_levels(level);
    const std::string cpu_class = worker::cpu_class_of(expected);
    ASSERT_FALSE(cpu_class.empty());

    port_file = ::testing::TempDir() + "sparring-identity-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
    const int port = wait_for_port_file(port_file);
    ASSERT_GT(port, 0);

    // A level the CPU lacks: the worker says so and does not start.
    const CommandResult refused =
        cluster->run({binary("worker/sparring-worker"), "--coordinator", cluster->address,
                      "--token", cluster->worker_token, "--isa-levels",
                      expected.architecture() == "aarch64" ? "x86-64" : "armv8-a"});
    EXPECT_EQ(refused.status, 2) << refused.err;
    EXPECT_NE(refused.err.find("--isa-levels: this CPU does not run"), std::string::npos)
        << refused.err;

    cluster->add_version("a");
    cluster->add_version("b");
    cluster->start_worker("w1", 1, {"--isa-levels", claim});
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM workers") == 1; }, 15s));
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers WHERE cpu_class = '" + cpu_class + "'"),
              1);

    // sparring workers: the CLASS column and the machines' table; --long every part.
    CommandResult r = cluster->cli({"workers"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("CLASS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(cpu_class), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("machines"), std::string::npos) << r.out;
    if (!expected.machine_id().empty()) {
        EXPECT_NE(r.out.find(expected.machine_id()), std::string::npos) << r.out;
    }
    r = cluster->cli({"workers", "--long"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string claimed;
    for (const std::string& level : expected.isa_levels())
        claimed += (claimed.empty() ? "" : " ") + level;
    EXPECT_NE(r.out.find("isa levels  " + claimed + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("class       " + cpu_class), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel      " + expected.kernel()), std::string::npos) << r.out;
    std::cout << r.out;

    // REST: the identity and the class.
    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster->user_token}};
    httplib::Result rest = http.Get("/api/v1/workers", auth);
    ASSERT_TRUE(rest && rest->status == 200);
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    ASSERT_EQ(json["workers"].size(), 1u) << rest->body;
    const nlohmann::json& w = json["workers"][0];
    EXPECT_EQ(w["cpu_class"], cpu_class) << rest->body;
    EXPECT_EQ(w["identity"]["isa_levels"].back(), claim) << rest->body;
    EXPECT_EQ(w["identity"]["cpu_model"], expected.cpu_model()) << rest->body;
    EXPECT_EQ(w["identity"]["hardware_threads"], expected.hardware_threads()) << rest->body;
    EXPECT_EQ(w["identity"]["machine_id"], expected.machine_id()) << rest->body;
    rest = http.Get("/workers", auth);
    ASSERT_TRUE(rest && rest->status == 200);
    EXPECT_NE(rest->body.find("<h2 id=\"machines\">"), std::string::npos);
    EXPECT_NE(rest->body.find(cpu_class), std::string::npos);

    // A run played: each of its leases carries the worker's class.
    r = cluster->cli({"submit", "a", "b", "--kind", "fixed", "--games", "4", "--tc", "nodes=300"});
    ASSERT_EQ(r.status, 0) << r.err;
    const v1::RunStatus done = cluster->wait_for_run(1, 60s);
    EXPECT_EQ(done.state(), v1::RUN_STATE_FINISHED) << done.DebugString();
    EXPECT_GT(cluster->query("SELECT count(*) FROM batches WHERE run_id = 1"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE run_id = 1 AND cpu_class <> '" +
                             cpu_class + "'"),
              0);
}

// Registers a worker with an identity over gRPC; returns the status.
grpc::Status register_with(Cluster& cluster, const v1::WorkerIdentity& identity,
                           int64_t* worker_id = nullptr) {
    v1::RegisterRequest request;
    request.set_name("forger");
    request.set_cores(1);
    request.set_memory_mb(1024);
    request.set_concurrency(1);
    *request.mutable_identity() = identity;
    v1::RegisterResponse response;
    const grpc::Status status = cluster.workers()->Register(
        Cluster::context(cluster.worker_token).get(), request, &response);
    if (worker_id) *worker_id = response.worker_id();
    return status;
}

TEST_F(WorkerIdentityTest, HostileIdentitiesAreRefusedAndUnknownLevelsDropped) {
    cluster = std::make_unique<Cluster>();
    v1::WorkerIdentity base;
    base.set_cpu_vendor("GenuineIntel");
    base.set_cpu_model("Intel(R) Xeon(R) Gold 6248");
    base.set_cpu_family(6);
    base.set_cpu_model_id(0x55);
    base.set_architecture("x86_64");
    for (const char* level : {"x86-64", "x86-64-v2", "x86-64-v3"}) base.add_isa_levels(level);

    const std::vector<std::pair<std::string, std::function<void(v1::WorkerIdentity&)>>> hostile = {
        {"terminal escape in the model",
         [](v1::WorkerIdentity& i) { i.set_cpu_model("Xeon\x1b[2J\x1b[31m owned"); }},
        {"oversized model",
         [](v1::WorkerIdentity& i) { i.set_cpu_model(std::string(10000, 'x')); }},
        {"oversized OS", [](v1::WorkerIdentity& i) { i.set_os(std::string(300, 'o')); }},
        {"flood of flags",
         [](v1::WorkerIdentity& i) {
             for (int n = 0; n < 100000; ++n) i.add_cpu_flags("f" + std::to_string(n));
         }},
        {"flag with markup", [](v1::WorkerIdentity& i) { i.add_cpu_flags("<script>"); }},
        {"level too long", [](v1::WorkerIdentity& i) { i.add_isa_levels(std::string(40, 'v')); }},
        {"machine id not hex", [](v1::WorkerIdentity& i) { i.set_machine_id("../../etc"); }},
        {"threads past any machine",
         [](v1::WorkerIdentity& i) { i.set_hardware_threads(4'000'000'000u); }},
        {"core type flood", [](v1::WorkerIdentity& i) {
             v1::CoreType* type = i.add_core_types();
             type->set_name("performance");
             for (uint32_t cpu = 0; cpu < 70000; ++cpu) type->add_cpu_ids(cpu);
         }}};
    for (const auto& [what, change] : hostile) {
        v1::WorkerIdentity identity = base;
        change(identity);
        const grpc::Status status = register_with(*cluster, identity);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << what;
        EXPECT_NE(status.error_message().find("the worker's identity"), std::string::npos)
            << what << ": " << status.error_message();
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers"), 0) << "a refusal changes nothing";

    // A newer worker's level unknown here is dropped, the rest kept in order.
    v1::WorkerIdentity newer = base;
    newer.clear_isa_levels();
    for (const char* level : {"x86-64-v3", "x86-64-v9", "x86-64", "x86-64-v2", "x86-64-v3"})
        newer.add_isa_levels(level);
    int64_t id = 0;
    const grpc::Status status = register_with(*cluster, newer, &id);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers WHERE id = " + std::to_string(id) +
                             " AND cpu_class = 'skylakex-avx2' AND identity LIKE "
                             "'%\"isa_levels\":[\"x86-64\",\"x86-64-v2\",\"x86-64-v3\"]%'"),
              1);
    // A worker of before reports no identity: no class, shown as "-".
    ASSERT_NE(register_worker(*cluster->workers(), cluster->worker_token), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers WHERE cpu_class = ''"), 1);
    const CommandResult r = cluster->cli({"workers"});
    EXPECT_NE(r.out.find("skylakex-avx2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sparring::testing
