// Faults a coordinator meets in production, made real on 127.0.0.1: its database's file system
// fills up, its database file stops being writable, the process is stopped for longer than the
// lease time, the wall clock jumps, and the file is damaged before a start. Each test checks
// the calls' status and message during the fault, that nothing acknowledged is lost, and that
// the service recovers by itself (workers keep retrying; the run ends with the right count).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>

#include "client/connection.h"
#include "service/cluster.h"
#include "service/needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* kFaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

// Sets the soft limit on the size of files a process writes (RLIMIT_FSIZE, as a quota does);
// the hard limit stays, so the same user can raise it again without privileges.
void limit_file_size(pid_t pid, rlim_t bytes) {
    rlimit limit{};
    ASSERT_EQ(prlimit(pid, RLIMIT_FSIZE, nullptr, &limit), 0) << std::strerror(errno);
    limit.rlim_cur = std::min(bytes, limit.rlim_max);
    ASSERT_EQ(prlimit(pid, RLIMIT_FSIZE, &limit, nullptr), 0) << std::strerror(errno);
}

class FaultTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Starts a cluster with short leases: a second's heartbeat, a lease of `lease` seconds.
    void start_cluster(int lease = 5) {
        cluster = std::make_unique<Cluster>(
            std::vector<std::string>{"--heartbeat-seconds", "1", "--lease-seconds",
                                     std::to_string(lease), "--pairs-per-thread", "2"});
        cluster->add_version("a");
        cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    }

    // Submits a fixed-games run of a against b through the CLI.
    void submit_fixed(int games, const std::string& tc = "nodes=300") {
        const CommandResult r = cluster->cli(
            {"submit", "a", "b", "--kind", "fixed", "--games", std::to_string(games), "--tc", tc});
        ASSERT_EQ(r.status, 0) << r.err;
    }

    // Starts two workers that report every second.
    void start_workers() {
        workers.push_back(&cluster->start_worker("one", 1, {"--report-seconds", "1"}));
        workers.push_back(&cluster->start_worker("two", 1, {"--report-seconds", "1"}));
    }

    // Returns the status of submitting a run over gRPC (a write the database must take).
    grpc::Status try_submit(std::string* message) const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(2);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        *message = status.error_message();
        return status;
    }

    // Checks that run 1 finished with exactly `games` games, each stored once, and that the
    // run's counts equal the games table's.
    void expect_finished_exactly(int games) {
        const v1::RunStatus run = cluster->wait_for_run(1, 600s);
        ASSERT_EQ(run.state(), v1::RUN_STATE_FINISHED) << run.DebugString();
        EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT count(DISTINCT game) FROM games WHERE run_id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT 2 * pairs_done FROM runs WHERE id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT wins + draws + losses FROM runs WHERE id = 1"), games);
        EXPECT_EQ(cluster->query("SELECT 2 * sum(pairs) FROM results WHERE run_id = 1"), games);
    }

    // Checks that every worker is still running (none gave up during the fault).
    void expect_workers_running() {
        for (Process* worker : workers) EXPECT_FALSE(worker->wait_exit(0ms)) << worker->log_path();
    }

    std::unique_ptr<Cluster> cluster;
    std::vector<Process*> workers;
};

// The disk fills up under the coordinator: a file-size limit on its process (RLIMIT_FSIZE) makes
// every write that would grow a file fail, as a full file system or a quota does; it needs no
// privileges, so the fault is exercised wherever the tests run.
TEST_F(FaultTest, FullDiskIsResourceExhaustedAndRecovers) {
    start_cluster();
    submit_fixed(60);
    start_workers();
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 120s));
    limit_file_size(cluster->coordinator_pid(), 0);
    const int64_t acknowledged = cluster->query("SELECT pairs_done FROM runs WHERE id = 1");

    // Writes fail with RESOURCE_EXHAUSTED once SQLite needs a page the disk cannot give.
    std::string message;
    grpc::StatusCode code = grpc::StatusCode::OK;
    ASSERT_TRUE(wait_until(
        [&] {
            code = try_submit(&message).error_code();
            return code != grpc::StatusCode::OK;
        },
        60s));
    EXPECT_EQ(code, grpc::StatusCode::RESOURCE_EXHAUSTED) << message;
    EXPECT_NE(message.find("file system is full"), std::string::npos) << message;
    EXPECT_NE(message.find("retry"), std::string::npos) << message;
    const CommandResult shown = cluster->cli({"show", "1"});
    EXPECT_EQ(shown.status, 0) << "reads go on: " << shown.err;
    // A span of the fault: workers meet it too and keep retrying, and nothing acknowledged is
    // lost in it (no event marks its end).
    std::this_thread::sleep_for(5s);
    EXPECT_GE(cluster->query("SELECT pairs_done FROM runs WHERE id = 1"), acknowledged);
    expect_workers_running();

    limit_file_size(cluster->coordinator_pid(), RLIM_INFINITY);
    expect_finished_exactly(60);
    EXPECT_TRUE(try_submit(&message).ok()) << message;
}

// The database's file system turns read-only under the coordinator, as the kernel does after an
// I/O error. A preloaded library (write_fault.cpp) fails its writes to the database files with
// EROFS while a flag file exists: an open file cannot be made read-only without privileges
// (chattr +i needs CAP_LINUX_IMMUTABLE, a remount needs no writer), and this runs everywhere.
TEST_F(FaultTest, UnwritableDatabaseIsUnavailableAndRecovers) {
    start_cluster();
    const std::string read_only = cluster->dir + "/read-only";
    cluster->stop_coordinator(SIGTERM);
    cluster->coordinator_environment = {std::string("LD_PRELOAD=") + SPARRING_WRITE_FAULT_LIB,
                                        "SPARRING_WRITE_FAULT_FLAG=" + read_only,
                                        "SPARRING_WRITE_FAULT_PATH=" + cluster->db};
    cluster->start_coordinator();
    submit_fixed(60);
    start_workers();
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 120s));
    // The database file and its write-ahead log refuse every write from now on.
    std::ofstream(read_only) << "on\n";
    struct Writable {
        std::string flag;
        ~Writable() { fs::remove(flag); }
    } writable{read_only};

    std::string message;
    const grpc::Status status = try_submit(&message);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << message;
    EXPECT_NE(message.find("cannot be written"), std::string::npos) << message;
    // Read only once a write has been refused: a commit whose log frames were written just
    // before the log became immutable may still finish, and it was acknowledged.
    const int64_t acknowledged = cluster->query("SELECT pairs_done FROM runs WHERE id = 1");
    const CommandResult shown = cluster->cli({"show", "1"});
    EXPECT_EQ(shown.status, 0) << "reads go on: " << shown.err;
    // A write that must not happen: five seconds of the fault pass without one.
    std::this_thread::sleep_for(5s);
    EXPECT_EQ(cluster->query("SELECT pairs_done FROM runs WHERE id = 1"), acknowledged);
    expect_workers_running();

    ASSERT_TRUE(fs::remove(read_only));
    expect_finished_exactly(60);
    EXPECT_TRUE(try_submit(&message).ok()) << message;
}

TEST_F(FaultTest, CoordinatorStoppedLongerThanTheLeaseRecovers) {
    start_cluster();
    submit_fixed(40);
    start_workers();
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 120s));
    cluster->signal_coordinator(SIGSTOP);
    const int64_t acknowledged = cluster->query("SELECT pairs_done FROM runs WHERE id = 1");
    std::this_thread::sleep_for(12s);  // real time well past the five-second lease, under test
    // While it is stopped, calls end at their deadline: a transient failure.
    std::string message;
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", "Bearer " + cluster->user_token);
    context->set_deadline(std::chrono::system_clock::now() + 1s);
    v1::GetRunRequest request;
    request.set_run_id(1);
    v1::RunStatus run;
    EXPECT_EQ(cluster->users()->GetRun(context.get(), request, &run).error_code(),
              grpc::StatusCode::DEADLINE_EXCEEDED);
    cluster->signal_coordinator(SIGCONT);

    EXPECT_GE(cluster->query("SELECT pairs_done FROM runs WHERE id = 1"), acknowledged);
    expect_finished_exactly(40);
    expect_workers_running();
}

TEST_F(FaultTest, WallClockJumpsNeitherExpireLeasesEarlyNorKeepThemForever) {
    if (access(kFaketime, R_OK) != 0) SPARRING_SKIP_WITHOUT("needs Debian's faketime package");
    // Leases of 20 s: longer than a worker's set-up on a loaded machine, far shorter than the
    // jumps.
    start_cluster(20);
    // The coordinator's wall clock reads an offset from a file (libfaketime); its steady clock
    // stays true, as on a machine whose clock is set by hand or by a bad time server.
    const std::string offset = cluster->dir + "/clock-offset";
    std::ofstream(offset) << "+0\n";
    cluster->stop_coordinator(SIGTERM);
    cluster->coordinator_environment = {std::string("LD_PRELOAD=") + kFaketime,
                                        "FAKETIME_TIMESTAMP_FILE=" + offset, "FAKETIME_NO_CACHE=1",
                                        "FAKETIME_DONT_FAKE_MONOTONIC=1"};
    cluster->start_coordinator();
    const auto set_offset = [&](const char* text) {
        std::ofstream(offset + ".tmp") << text << "\n";
        fs::rename(offset + ".tmp", offset);
    };

    // One lease of all twelve pairs, at a node count that takes the victim well over the
    // seconds below: it is sure to die holding the lease.
    const CommandResult r = cluster->cli({"submit", "a", "b", "--kind", "fixed", "--games", "24",
                                          "--tc", "nodes=20000", "--pairs-per-thread", "12"});
    ASSERT_EQ(r.status, 0) << r.err;
    Process& victim = cluster->start_worker("victim", 1, {"--report-seconds", "1"});
    ASSERT_TRUE(
        wait_until([&] { return cluster->query("SELECT count(*) FROM results") > 0; }, 120s));

    // Forward an hour: the live worker's lease must not expire. (A lease can have expired
    // before, while a worker on a loaded machine verified the versions' bench signatures.)
    const std::string expired = "SELECT count(*) FROM batches WHERE state = 'expired'";
    const int64_t expired_before = cluster->query(expired);
    set_offset("+1h");
    // An expiry that must not happen: five seconds pass without it.
    std::this_thread::sleep_for(5s);
    EXPECT_EQ(cluster->query(expired), expired_before);
    EXPECT_FALSE(victim.wait_exit(0ms));

    // Back two hours, and the worker dies: its lease must still expire in 20 seconds.
    ASSERT_GT(cluster->query("SELECT count(*) FROM batches WHERE state = 'leased'"), 0)
        << "the victim finished its lease before it could be killed holding it";
    victim.signal(SIGKILL);
    ASSERT_EQ(victim.wait_exit(10s), 128 + SIGKILL);
    set_offset("-1h");
    cluster->start_worker("rescuer", 1, {"--report-seconds", "1"});
    ASSERT_TRUE(wait_until([&] { return cluster->query(expired) > expired_before; }, 60s));
    expect_finished_exactly(24);
}

// Past its queue bound the coordinator sheds: a flood of calls (from clients that wait as told
// before they call again) gets RESOURCE_EXHAUSTED with a retry-after in the trailing metadata,
// and nothing else goes wrong, while two real workers that get shed too wait, retry, and
// finish their run with every game stored once.
TEST_F(FaultTest, OverloadIsShedWithARetryAfterAndLosesNothing) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "2", "--max-queued-calls", "1"});
    cluster->add_version("a");
    cluster->add_version("b", "KnightValueMg=200,KnightValueEg=200");
    submit_fixed(20);
    start_workers();
    auto stub = cluster->workers();
    const int64_t flooder = register_worker(*stub, cluster->worker_token);
    ASSERT_GT(flooder, 0);
    std::atomic<bool> finished = false;
    std::atomic<int> ok = 0, shed = 0, shed_without_wait = 0, other = 0;
    std::mutex mutex;
    std::string unexpected;
    std::vector<std::thread> flood;
    for (int t = 0; t < 32; ++t)
        flood.emplace_back([&] {
            while (!finished) {
                v1::HeartbeatRequest request;
                request.set_worker_id(flooder);
                v1::HeartbeatResponse response;
                auto context = Cluster::context(cluster->worker_token);
                const grpc::Status status = stub->Heartbeat(context.get(), request, &response);
                if (status.ok()) {
                    ++ok;
                } else if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                           status.error_message().find("busy") != std::string::npos) {
                    ++shed;
                    const auto& trailers = context->GetServerTrailingMetadata();
                    const auto wait = trailers.find(rpc::kRetryAfterKey);
                    const int wait_ms =
                        wait == trailers.end()
                            ? 0
                            : std::stoi(std::string(wait->second.data(), wait->second.size()));
                    if (wait_ms < 20) ++shed_without_wait;
                    // The client waits as told, as real clients do: the wait is under test.
                    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
                } else {
                    ++other;
                    std::lock_guard lock(mutex);
                    unexpected = status.error_message();
                }
            }
        });
    const v1::RunStatus run = cluster->wait_for_run(1, 300s);
    finished = true;
    for (std::thread& thread : flood) thread.join();
    EXPECT_GT(shed, 0) << ok << " calls taken";
    std::cout << ok << " calls taken, " << shed << " shed\n";
    EXPECT_GT(ok, 0);
    EXPECT_EQ(shed_without_wait, 0);
    EXPECT_EQ(other, 0) << unexpected;
    EXPECT_EQ(run.state(), v1::RUN_STATE_FINISHED);
    expect_finished_exactly(20);
    expect_workers_running();
}

// A follow-up starts exactly once however the coordinator dies as its first run ends (issue 31,
// item 4). Killed inside the transaction that counts the run's last report (the preloaded
// write_fault.cpp kills it at the first write to the database once a flag file exists), nothing
// of the report is stored and the worker's retry ends the run; killed right after that
// transaction committed, before the worker has its answer (at the log line of the run's end),
// the retry is acknowledged as a duplicate. Each time: one follow-up, never none, never two.
TEST_F(FaultTest, ACoordinatorKilledAsARunEndsStartsItsFollowUpOnce) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--pairs-per-thread", "4"});
    cluster->add_version("a");
    cluster->add_version("b");
    const std::string lib = SPARRING_WRITE_FAULT_LIB;
    const std::string flag = cluster->dir + "/kill-at-next-write";
    // Submits a regression run of 4 pairs, which one lease and one report finish, with a
    // follow-up at 600 nodes on any result; returns its id.
    const auto submit = [&](int priority) {
        v1::SubmitRunRequest request;
        v1::RunSpec& spec = *request.mutable_spec();
        spec = fixed_games_spec(8);
        spec.set_kind(v1::RUN_KIND_REGRESSION);
        spec.set_priority(priority);
        spec.mutable_sprt()->set_elo0(0);
        spec.mutable_sprt()->set_elo1(5);
        spec.mutable_sprt()->set_alpha(0.05);
        spec.mutable_sprt()->set_beta(0.05);
        spec.mutable_follow_up()->set_on_result("any");
        spec.mutable_follow_up()->mutable_time_control()->set_nodes(600);
        spec.mutable_follow_up()->set_games(20);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    };
    // Leases the run's 4 pairs to a new worker; returns the worker and its whole report.
    const auto lease = [&](int64_t run_id) {
        auto stub = cluster->workers();
        const int64_t worker = register_worker(*stub, cluster->worker_token);
        v1::RequestWorkResponse work;
        EXPECT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
        EXPECT_EQ(work.lease().run_id(), run_id);
        EXPECT_EQ(work.lease().openings_size(), 4);
        return report(worker, work.lease().lease_id(), 1, {0, 1, 2, 3});
    };
    const auto send = [&](const v1::ReportResultsRequest& request, v1::ReportResultsResponse* ack) {
        return cluster->workers()->ReportResults(Cluster::context(cluster->worker_token).get(),
                                                 request, ack);
    };
    const auto follow_ups = [&](int64_t run_id) {
        return cluster->query(
            "SELECT count(*) FROM runs r JOIN run_links l ON l.child = r.id "
            "WHERE l.reason = 'follow_up' AND l.parent = " +
            std::to_string(run_id));
    };
    const auto restart = [&](std::vector<std::string> environment) {
        cluster->stop_coordinator(SIGKILL);
        cluster->coordinator_environment = std::move(environment);
        cluster->start_coordinator();
    };

    // Killed in the middle of the transaction that ends the run.
    restart({"LD_PRELOAD=" + lib, "SPARRING_WRITE_FAULT_FLAG=" + flag,
             "SPARRING_WRITE_FAULT_PATH=" + cluster->db, "SPARRING_WRITE_FAULT_KILL=1"});
    const int64_t first = submit(0);
    const v1::ReportResultsRequest first_report = lease(first);
    std::ofstream(flag).put('1');
    v1::ReportResultsResponse ack;
    EXPECT_FALSE(send(first_report, &ack).ok()) << "the coordinator answered";
    ASSERT_TRUE(cluster->coordinator_exited(10s)) << "the coordinator was not killed";
    fs::remove(flag);
    EXPECT_EQ(
        cluster->query("SELECT count(*) FROM results WHERE run_id = " + std::to_string(first)), 0);
    EXPECT_EQ(follow_ups(first), 0);
    restart({});
    ASSERT_TRUE(send(first_report, &ack).ok());
    EXPECT_FALSE(ack.duplicate());
    EXPECT_NE(cluster->wait_for_run(first, 10s).state(), v1::RUN_STATE_ACTIVE);
    EXPECT_EQ(follow_ups(first), 1);

    // Killed after the transaction that ends the run committed, before its answer.
    restart({"LD_PRELOAD=" + lib, "SPARRING_KILL_ON_TEXT=event=run_ended"});
    const int64_t second = submit(10);  // before the first's follow-up, which is active
    const v1::ReportResultsRequest second_report = lease(second);
    EXPECT_FALSE(send(second_report, &ack).ok()) << "the coordinator answered";
    ASSERT_TRUE(cluster->coordinator_exited(10s)) << "the coordinator was not killed";
    EXPECT_EQ(follow_ups(second), 1);
    restart({});
    ASSERT_TRUE(send(second_report, &ack).ok());
    EXPECT_TRUE(ack.duplicate());
    EXPECT_EQ(follow_ups(first), 1);
    EXPECT_EQ(follow_ups(second), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 4);
    // The follow-ups: the same versions and owner at 600 nodes, 20 games, linked both ways.
    v1::GetRunRequest get;
    get.set_run_id(second);
    v1::RunStatus ended;
    ASSERT_TRUE(
        cluster->users()->GetRun(Cluster::context(cluster->user_token).get(), get, &ended).ok());
    ASSERT_GT(ended.follow_up_run_id(), 0);
    get.set_run_id(ended.follow_up_run_id());
    v1::RunStatus next;
    ASSERT_TRUE(
        cluster->users()->GetRun(Cluster::context(cluster->user_token).get(), get, &next).ok());
    EXPECT_EQ(next.follows_run_id(), second);
    EXPECT_EQ(next.state(), v1::RUN_STATE_ACTIVE);
    EXPECT_EQ(next.spec().time_control().nodes(), 600u);
    EXPECT_EQ(next.spec().games(), 20u);
    EXPECT_EQ(next.spec().test_version(), "a");
    EXPECT_EQ(next.spec().owner(), "user");
    EXPECT_FALSE(next.spec().has_follow_up());
}

TEST_F(FaultTest, DamagedDatabaseIsRefusedWithHowToRestore) {
    start_cluster();
    submit_fixed(20);
    start_workers();
    ASSERT_EQ(cluster->wait_for_run(1, 300s).state(), v1::RUN_STATE_FINISHED);
    const std::string coordinator = binary("coordinator/sparring-coordinator");
    const std::string backup = cluster->dir + "/backup.db";
    ASSERT_EQ(cluster->run({coordinator, "backup", "--db", cluster->db, "--to", backup}).status, 0);
    cluster->stop_coordinator(SIGTERM);

    // A page of the games table is overwritten, as by a failing disk.
    const int64_t page_size = cluster->query("PRAGMA page_size");
    const int64_t root = cluster->query("SELECT rootpage FROM sqlite_master WHERE name = 'games'");
    ASSERT_GT(root, 1);
    {
        std::fstream file(cluster->db, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp((root - 1) * page_size);
        const std::string garbage(size_t(page_size), '\x5a');
        file.write(garbage.data(), std::streamsize(garbage.size()));
    }
    const CommandResult refused =
        cluster->run({coordinator, "serve", "--db", cluster->db, "--listen", "127.0.0.1:0"});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("is damaged"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("Restore the last backup"), std::string::npos) << refused.err;

    // The message's recipe brings the service back with every game.
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(cluster->db + suffix);
    fs::copy_file(backup, cluster->db, fs::copy_options::overwrite_existing);
    cluster->start_coordinator();
    EXPECT_EQ(cluster->wait_for_run(1, 30s).state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games WHERE run_id = 1"), 20);
}

}  // namespace
}  // namespace sparring::testing
