// Integration-test harness: real coordinator, worker and CLI processes on 127.0.0.1 with a
// temporary SQLite file, gRPC stubs to talk to the coordinator, and SQL checks of the file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sparring/v1/user.grpc.pb.h"
#include "sparring/v1/worker.grpc.pb.h"
#include "wait.h"

namespace sparring::testing {

using test_support::wait_until;

// A child process with its output in a log file; killed (SIGKILL) if still running at the end.
class Process {
  public:
    // Starts argv[0] with the environment of this process plus `environment` ("NAME=value").
    Process(const std::vector<std::string>& argv, const std::string& log_path,
            const std::vector<std::string>& environment = {});
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int signal) const;
    // Waits up to timeout for the process to exit; returns its exit status (128 + signal
    // when killed), or nullopt if it is still running.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout);
    const std::string& log_path() const { return log_path_; }

  private:
    pid_t pid_ = -1;
    std::optional<int> status_;
    std::string log_path_;
};

struct CommandResult {
    int status = -1;
    std::string out;
    std::string err;
};

class Cluster {
  public:
    // Makes a temporary directory, creates a user and a worker token, starts a coordinator.
    explicit Cluster(std::vector<std::string> coordinator_flags = {});
    ~Cluster();

    // Starts the coordinator (on the port it had before, after the first start).
    void start_coordinator();
    // Sends a signal to the coordinator and waits for it to exit.
    void stop_coordinator(int signal);
    // Sends a signal to the coordinator without waiting (SIGSTOP, SIGCONT).
    void signal_coordinator(int signal) const { coordinator_->signal(signal); }
    // Waits up to timeout for the coordinator to exit by itself; returns whether it did.
    bool coordinator_exited(std::chrono::milliseconds timeout) {
        return coordinator_->wait_exit(timeout).has_value();
    }
    // Returns the running coordinator's process id.
    pid_t coordinator_pid() const { return coordinator_->pid(); }
    // Starts a worker process with the worker token.
    Process& start_worker(const std::string& name, int concurrency,
                          const std::vector<std::string>& extra = {});
    // Runs the sparring CLI against the coordinator with the user token and waits for it.
    CommandResult cli(const std::vector<std::string>& args) const;
    // Runs any binary and waits for it.
    CommandResult run(const std::vector<std::string>& argv) const;
    // Creates a token of a role ("user", "admin", "worker") for a user with `sparring-coordinator
    // token create` on the database, beside the running coordinator; returns its secret.
    std::string create_token(const std::string& role, const std::string& name) const;
    // Returns the first column of the first row of a query on the database file.
    int64_t query(const std::string& sql) const;
    // Prints the logs of every process (after a failure).
    void dump_logs() const;

    // Returns a stub of the user service, or of the worker service.
    std::unique_ptr<v1::UserService::Stub> users() const;
    std::unique_ptr<v1::WorkerService::Stub> workers() const;
    // Returns a client context with a token (none when empty) and a deadline.
    static std::unique_ptr<grpc::ClientContext> context(
        const std::string& token, std::chrono::seconds deadline = std::chrono::seconds(10));

    // Returns a run as GetRun answers it (cleared when the call fails).
    v1::RunStatus get_run(int64_t run_id) const;
    // Waits until a run's state differs from active, up to timeout; returns the run.
    v1::RunStatus wait_for_run(int64_t run_id, std::chrono::seconds timeout) const;
    // Adds a built-in version through the CLI (bench computed by the CLI).
    void add_version(const std::string& name, const std::string& overrides = "") const;

    std::string dir;
    std::string db;
    std::string address;
    std::string user_token;
    std::string worker_token;
    std::string tls_ca;  // CA file for clients when the coordinator serves TLS
    // Added to the coordinator's environment ("NAME=value") from its next start.
    std::vector<std::string> coordinator_environment;

  private:
    std::vector<std::string> coordinator_flags_;
    int port_ = 0;
    int coordinator_starts_ = 0;
    std::unique_ptr<Process> coordinator_;
    std::vector<std::unique_ptr<Process>> workers_;
};

// Registers a worker (concurrency 1) over gRPC with a token, and a machine identity when given;
// returns its id, or 0 if refused.
int64_t register_worker(v1::WorkerService::Stub& stub, const std::string& token,
                        const std::string& name = "forger",
                        const v1::WorkerIdentity& identity = v1::WorkerIdentity());
// Asks for work as that worker with a token; the answer (a lease or a retry time) is in *work.
grpc::Status request_work(v1::WorkerService::Stub& stub, const std::string& token, int64_t worker,
                          v1::RequestWorkResponse* work);
// A worker registered over gRPC holding a lease of a fixed-games run (fixed_games_spec).
struct HeldLease {
    int64_t run_id = 0;
    int64_t worker_id = 0;
    int64_t lease_id = 0;
};
// Adds the built-in versions a and b, submits a fixed-games run of `games` games, registers a
// worker and leases it pairs of the run; run_id 0 (and why on stderr) when a step fails.
HeldLease hold_lease(Cluster& cluster, v1::WorkerService::Stub& workers, uint64_t games);
// Returns a report of pairs of a lease: a win for the test version as white, a draw as black.
v1::ReportResultsRequest report(int64_t worker, int64_t lease, uint32_t sequence,
                                std::vector<uint32_t> indices);

// Returns a fixed-games spec of `games` games, version "a" against "b" at 300 nodes a move,
// with a two-opening book (1.e4 and 1.d4).
v1::RunSpec fixed_games_spec(uint64_t games);

// Returns the path of a built binary, relative to the build directory.
std::string binary(const std::string& relative);
// Returns the flags every test's worker needs in this build: under AddressSanitizer no
// address-space limit for engines (the sanitized sparring-engine reserves terabytes for its
// shadow memory), none otherwise.
std::vector<std::string> build_worker_flags();
// Returns a file's contents, or an empty string.
std::string slurp(const std::string& path);
// Returns how many times text occurs in a file.
size_t count_in(const std::string& path, const std::string& text);
// Returns how many times text occurs in s.
size_t count_in_text(const std::string& s, const std::string& text);
// Returns the port a coordinator wrote to port_file (--http-port-file), waiting up to 5 s for
// the file; 0 when it is not there.
int wait_for_port_file(const std::string& port_file);
// Writes a book of twelve quiet openings (one white move each) to dir/quiet-openings.epd and
// returns its path. From them no mate comes within a few moves, as it can from the default
// book's wild positions: tests that count something every game must see happen use it.
std::string write_quiet_book(const std::string& dir);

}  // namespace sparring::testing
