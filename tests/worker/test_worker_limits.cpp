// The worker's defences without a coordinator: a lease too large to read is a permanent
// failure, a run whose leases keep failing is backed off (on a clock the test moves), a bench
// runs through the games' child-process code with a time limit, and tokens come from files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <variant>

#include "client/connection.h"
#include "match/uci_options.h"
#include "tests/worker/fake_clock.h"
#include "worker/grpc_coordinator.h"
#include "worker/match_setup.h"
#include "worker/run_backoff.h"
#include "worker/signature.h"

namespace sparring::worker {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

// Writes an executable shell script into the test's temporary directory; returns its path.
std::string script(const std::string& name, const std::string& body) {
    const std::string path = testing::TempDir() + "/" + name + "_" + std::to_string(getpid());
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
}

// Returns a UCI version running command with a bench signature to check.
v1::Version uci_version(const std::string& command) {
    v1::Version version;
    version.set_id(5);
    version.set_name("external");
    version.mutable_uci()->set_command(command);
    version.set_bench(4242);
    return version;
}

TEST(WorkerLimits, AMessageLargerThanTheLimitIsPermanent) {
    // What gRPC answers when the coordinator sends a 14 MB lease to a 4 MiB receive limit.
    const grpc::Status too_large(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "Received message larger than max (14680064 vs. 4194304)");
    EXPECT_TRUE(is_message_too_large(too_large));
    EXPECT_EQ(outcome_of(too_large).kind, CallOutcome::Kind::Permanent);
    const grpc::Status sent(grpc::StatusCode::RESOURCE_EXHAUSTED,
                            "Sent message larger than max (5000000 vs. 4194304)");
    EXPECT_EQ(outcome_of(sent).kind, CallOutcome::Kind::Permanent);
    // A coordinator that is merely busy is still retried.
    const grpc::Status busy(grpc::StatusCode::RESOURCE_EXHAUSTED, "too many requests");
    EXPECT_FALSE(is_message_too_large(busy));
    EXPECT_EQ(outcome_of(busy).kind, CallOutcome::Kind::Transient);
    EXPECT_FALSE(is_message_too_large(grpc::Status(grpc::StatusCode::INTERNAL, "larger than max")));
}

TEST(WorkerLimits, ARunWhoseLeasesFailIsAvoidedLongerEachTimeUpToTheCap) {
    FakeClock clock;
    RunBackoff backoff(1000ms, 8000ms, 7);
    EXPECT_TRUE(backoff.avoided(clock.now()).empty());
    // Failures in a row: each delay in the upper half of a doubling, capped, never shorter.
    milliseconds previous_cap{0};
    for (const milliseconds cap : {1000ms, 2000ms, 4000ms, 8000ms, 8000ms, 8000ms}) {
        const milliseconds delay = backoff.failed(3, clock.now());
        EXPECT_GE(delay, cap / 2);
        EXPECT_LE(delay, cap);
        EXPECT_GE(cap, previous_cap);
        previous_cap = cap;
        EXPECT_EQ(backoff.avoided(clock.now()), std::vector<int64_t>{3});
        ASSERT_TRUE(backoff.avoided_until(3, clock.now()));
        clock.advance(delay - 1ms);
        EXPECT_EQ(backoff.avoided(clock.now()), std::vector<int64_t>{3});
        clock.advance(1ms);
        EXPECT_TRUE(backoff.avoided(clock.now()).empty());
        EXPECT_FALSE(backoff.avoided_until(3, clock.now()));
    }
    EXPECT_EQ(backoff.failures(3), 6);
    // Another run is not affected, and a lease that ends well forgets the failures.
    backoff.failed(9, clock.now());
    EXPECT_EQ(backoff.avoided(clock.now()), std::vector<int64_t>{9});
    backoff.succeeded(3);
    EXPECT_EQ(backoff.failures(3), 0);
    EXPECT_LE(backoff.failed(3, clock.now()), 1000ms);
    EXPECT_EQ(backoff.avoided(clock.now()), (std::vector<int64_t>{3, 9}));
}

TEST(WorkerLimits, BackoffBoundsTheLeasesOfAFailingRun) {
    // The worker made 2,756 lease rows in 15 s; with the defaults (1 s first, capped)
    // a run that fails every lease is leased a handful of times in that span.
    FakeClock clock;
    RunBackoff backoff(1000ms, 300'000ms, 1);
    int leases = 0;
    const auto end = clock.now() + 15s;
    while (clock.now() < end) {
        if (auto until = backoff.avoided_until(1, clock.now())) {
            clock.advance(std::chrono::duration_cast<milliseconds>(*until - clock.now()));
            continue;
        }
        ++leases;  // leased, failed at once
        backoff.failed(1, clock.now());
    }
    EXPECT_LE(leases, 6);
    EXPECT_GE(leases, 3);
}

TEST(WorkerLimits, AHungBenchIsKilledAtItsTimeLimit) {
    const std::string pid_file = testing::TempDir() + "/hung_bench_" + std::to_string(getpid());
    const std::string hung = script("hung_bench", "echo $$ > " + pid_file + "\nsleep 1000");
    BenchOptions options;
    options.timeout = 500ms;
    const auto started = std::chrono::steady_clock::now();
    const Signature signature = signature_of(uci_version(hung), options);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    EXPECT_EQ(signature.status, Signature::Status::NoSignature);
    EXPECT_NE(signature.error.find("no result within"), std::string::npos) << signature.error;
    // The shell and its sleep are gone: the bench's whole process group was killed.
    std::ifstream in(pid_file);
    pid_t pid = 0;
    ASSERT_TRUE(in >> pid);
    EXPECT_NE(kill(pid, 0), 0);
}

TEST(WorkerLimits, BenchReadsStdoutAndStderrThroughTheChildProcess) {
    const std::string log = testing::TempDir() + "/bench_probe_" + std::to_string(getpid());
    const std::string probe = std::string(SPARRING_SOURCE_DIR) + "/tests/match/probe_engine.sh";
    // The probe engine takes its log as first argument: wrap it.
    const std::string wrapper = script("bench_wrapper", "exec " + probe + " " + log + " \"$@\"");
    setenv("SPARRING_TOKEN", "spw_bench_secret", 1);
    BenchOptions options;
    options.limits.memory_headroom_mb = 500;
    const Signature signature = signature_of(uci_version(wrapper), options);
    unsetenv("SPARRING_TOKEN");
    ASSERT_EQ(signature.status, Signature::Status::Computed) << signature.error;
    EXPECT_EQ(signature.nodes, 4242u);  // printed on stderr, as Stockfish does
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find("spw_bench_secret"), std::string::npos);
    EXPECT_NE(text.find("limit_as_kb=" + std::to_string((16 + 500) * 1024)), std::string::npos)
        << text;

    const std::string failing = script("failing_bench", "echo 'Nodes searched: 1'; exit 3");
    const Signature failed = signature_of(uci_version(failing), BenchOptions());
    EXPECT_EQ(failed.status, Signature::Status::NoSignature);
    EXPECT_NE(failed.error.find("exit status 3"), std::string::npos) << failed.error;
    const Signature missing = signature_of(uci_version("/nonexistent/engine"), BenchOptions());
    EXPECT_EQ(missing.status, Signature::Status::Error);
    EXPECT_NE(missing.error.find("cannot start"), std::string::npos) << missing.error;
}

TEST(WorkerLimits, ReservedMemoryFollowsTheHashOptionWithinBounds) {
    v1::Version version = uci_version("engine");
    EXPECT_EQ(reserved_memory_mb(version), 16);
    (*version.mutable_uci()->mutable_options())["Hash"] = "256";
    EXPECT_EQ(reserved_memory_mb(version), 256);
    (*version.mutable_uci()->mutable_options())["Hash"] = "9223372036854775807";
    EXPECT_EQ(reserved_memory_mb(version), int64_t(1) << 30);
    (*version.mutable_uci()->mutable_options())["Hash"] = "99999999999999999999999";
    EXPECT_EQ(reserved_memory_mb(version), int64_t(1) << 30);
    (*version.mutable_uci()->mutable_options())["Hash"] = "-5";
    EXPECT_EQ(reserved_memory_mb(version), 0);
    (*version.mutable_uci()->mutable_options())["Hash"] = "lots";
    EXPECT_EQ(reserved_memory_mb(version), 16);
}

TEST(WorkerLimits, ReservedMemoryFindsHashInAnySpelling) {
    v1::Version version = uci_version("engine");
    auto& options = *version.mutable_uci()->mutable_options();
    options["hash"] = "800";
    EXPECT_EQ(reserved_memory_mb(version), 800);
    options.clear();
    options["HASH"] = "800";
    EXPECT_EQ(reserved_memory_mb(version), 800);
    options.clear();
    options["Ha sh"] = "800";  // another option to an engine
    EXPECT_EQ(reserved_memory_mb(version), 16);
    // Two spellings (refused since, but stored before): the larger counts.
    options["Hash"] = "16";
    options["hash"] = "800";
    EXPECT_EQ(reserved_memory_mb(version), 800);
}

TEST(WorkerLimits, ALeaseWhoseHashTablesExceedTheWorkersMemoryIsRefused) {
    v1::Lease lease;
    (*lease.mutable_test()->mutable_uci()->mutable_options())["hash"] = "800";
    lease.mutable_base()->mutable_builtin()->set_hash_mb(64);
    // 864 MiB a game: two games at a time need 1728 MiB.
    EXPECT_EQ(memory_refusal(lease, 2, 1728), "");
    const std::string why = memory_refusal(lease, 2, 100);
    EXPECT_NE(why.find("need 1728 MiB (864 a game, 2 at a time), over this worker's 100 MiB"),
              std::string::npos)
        << why;
    // The built-in engine's hash comes from the lease too, and is held to the same limit.
    lease.mutable_test()->Clear();
    lease.mutable_test()->mutable_builtin()->set_hash_mb(4'000'000'000u);
    EXPECT_NE(memory_refusal(lease, 1, 1 << 20), "");
    lease.mutable_base()->mutable_builtin()->set_hash_mb(4'000'000'000u);
    EXPECT_NE(memory_refusal(lease, INT_MAX, INT64_MAX - 1), "");  // no overflow to "fits"
}

// However much memory the worker has, a built-in engine's hash over the bound the coordinator
// checks is refused, not narrowed to an int.
TEST(WorkerLimits, ABuiltinHashOverTheBoundIsRefusedWhateverTheWorkersMemory) {
    v1::Lease lease;
    for (v1::Version* version : {lease.mutable_test(), lease.mutable_base()}) {
        version->set_name("big");
        version->mutable_builtin()->set_params_json("{}");
    }
    lease.mutable_test()->mutable_builtin()->set_hash_mb(65536);
    std::string error;
    ASSERT_TRUE(match_config(lease, 1, "site", &error)) << error;
    lease.mutable_test()->mutable_builtin()->set_hash_mb(3'000'000'000u);
    EXPECT_FALSE(match_config(lease, 1, "site", &error));
    EXPECT_EQ(error, "version 'big': hash 3000000000 MiB is over 65536 MiB");
}

TEST(WorkerLimits, OptionsAStoredVersionCouldStillHoldAreRefusedBeforeAnEngineStarts) {
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"Debug  Log  File", "/tmp/sparring-submitter.log"},
             {"debug log file", "/tmp/sparring-submitter.log"},
             {"hash", "800000"}}) {
        v1::Lease lease;
        *lease.mutable_test() = uci_version("/bin/true");
        (*lease.mutable_test()->mutable_uci()->mutable_options())[name] = value;
        *lease.mutable_base() = uci_version("/bin/true");
        std::string error;
        EXPECT_FALSE(match_config(lease, 1, "site", &error)) << name;
        EXPECT_NE(error.find("version 'external': UCI option '" + name + "'"), std::string::npos)
            << error;
    }
}

// A run of N threads per engine: a worker plays its cores / N games at once, each UCI engine's
// Threads option in any spelling becomes N (1 included), and the hash tables are counted per
// game at once.
TEST(WorkerLimits, ThreadsPerEngineSetEachUciEngineAndDivideTheWorkersCores) {
    v1::Lease lease;
    *lease.mutable_test() = uci_version("/usr/games/stockfish");
    (*lease.mutable_test()->mutable_uci()->mutable_options())["threads"] = "1";
    (*lease.mutable_test()->mutable_uci()->mutable_options())["Hash"] = "100";
    lease.mutable_base()->mutable_builtin()->set_params_json("{}");
    lease.mutable_base()->mutable_builtin()->set_hash_mb(16);
    lease.set_threads(2);
    std::string error;
    std::optional<match::MatchConfig> config = match_config(lease, 5, "site", &error);
    ASSERT_TRUE(config) << error;
    EXPECT_EQ(config->concurrency, 2);
    const auto* uci = std::get_if<match::UciSpec>(&config->first.engine);
    ASSERT_NE(uci, nullptr);
    std::vector<std::pair<std::string, std::string>> threads;
    for (const auto& option : uci->options)
        if (match::canonical_option_name(option.first) == "threads") threads.push_back(option);
    EXPECT_EQ(threads, (std::vector<std::pair<std::string, std::string>>{{"Threads", "2"}}));
    EXPECT_TRUE(std::holds_alternative<match::BuiltinSpec>(config->second.engine));
    // 116 MiB a game, two games on five cores.
    EXPECT_EQ(memory_refusal(lease, 5, 232), "");
    EXPECT_NE(memory_refusal(lease, 5, 231), "");
    // One core cannot hold a game of two threads.
    EXPECT_FALSE(match_config(lease, 1, "site", &error));
    EXPECT_EQ(error, "a game of the run needs 2 cores and this worker has 1 (--concurrency)");
    // A run of one thread (or none given) sends 1 as well: a version's own Threads, stored
    // before the coordinator refused them, never reaches the engine (issue 49: Threads=64 gave
    // a Stockfish game 31 threads while the scheduler counted one core).
    (*lease.mutable_test()->mutable_uci()->mutable_options())["threads"] = "64";
    lease.clear_threads();
    config = match_config(lease, 5, "site", &error);
    ASSERT_TRUE(config) << error;
    EXPECT_EQ(config->concurrency, 5);
    uci = std::get_if<match::UciSpec>(&config->first.engine);
    ASSERT_NE(uci, nullptr);
    threads.clear();
    for (const auto& option : uci->options)
        if (match::canonical_option_name(option.first) == "threads") threads.push_back(option);
    EXPECT_EQ(threads, (std::vector<std::pair<std::string, std::string>>{{"Threads", "1"}}));
}

TEST(WorkerLimits, TokensComeFromTheFirstLineOfAFile) {
    const std::string path = testing::TempDir() + "/token_" + std::to_string(getpid());
    std::ofstream(path) << "  spw_abc123 \nsecond line\n";
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    EXPECT_EQ(rpc::read_token_file(path), "spw_abc123");
    std::ofstream(path) << "\n";
    EXPECT_THROW(rpc::read_token_file(path), std::runtime_error);
    std::ofstream(path) << "spw_a\x1b[2Jb\n";
    EXPECT_THROW(rpc::read_token_file(path), std::runtime_error);
    EXPECT_THROW(rpc::read_token_file(path + ".missing"), std::runtime_error);
}

TEST(WorkerLimits, ATokenFileOtherUsersCanReadIsRefused) {
    const std::string path = testing::TempDir() + "/open_token_" + std::to_string(getpid());
    std::ofstream(path) << "spw_abc123\n";
    for (const auto open : {std::filesystem::perms::group_read, std::filesystem::perms::others_read,
                            std::filesystem::perms::others_write}) {
        std::filesystem::permissions(
            path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write | open);
        try {
            rpc::read_token_file(path);
            ADD_FAILURE() << "a token file other users can open was read";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
        }
    }
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    EXPECT_EQ(rpc::read_token_file(path), "spw_abc123");
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace sparring::worker
