#include "cluster.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "client/connection.h"
#include "coordinator/storage/sqlite.h"

namespace sparring::testing {

namespace {

using namespace std::chrono_literals;

// Whether this is the sanitizer build (the debug-sanitize preset), whose binaries the tests
// start.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace

std::string binary(const std::string& relative) {
    return std::string(SPARRING_BINARY_DIR) + "/" + relative;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

size_t count_in_text(const std::string& s, const std::string& text) {
    size_t n = 0;
    for (size_t at = s.find(text); at != std::string::npos; at = s.find(text, at + 1)) ++n;
    return n;
}

size_t count_in(const std::string& path, const std::string& text) {
    return count_in_text(slurp(path), text);
}

int wait_for_port_file(const std::string& port_file) {
    wait_until([&] { return std::filesystem::exists(port_file); }, 5s, 10ms);
    std::ifstream in(port_file);
    int port = 0;
    in >> port;
    return port;
}

std::string write_quiet_book(const std::string& dir) {
    const std::string book = dir + "/quiet-openings.epd";
    std::ofstream(book) << "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/6P1/PPPPPP1P/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/1P6/P1PPPPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/3P4/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/2P5/PP1PPPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/2N5/PPPPPPPP/R1BQKBNR b KQkq - 1 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b KQkq - 0 1\n"
                           "rnbqkbnr/pppppppp/8/8/8/7P/PPPPPPP1/RNBQKBNR b KQkq - 0 1\n";
    return book;
}

namespace {

// Returns argv as the null-terminated array execv takes (built before fork: the child of a
// threaded process may only make async-signal-safe calls).
std::vector<char*> exec_args(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return args;
}

}  // namespace

Process::Process(const std::vector<std::string>& argv, const std::string& log_path,
                 const std::vector<std::string>& environment)
    : log_path_(log_path) {
    std::vector<char*> args = exec_args(argv);
    std::vector<char*> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    for (const std::string& e : environment) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execve(args[0], args.data(), env.data());
        _exit(127);
    }
}

Process::~Process() {
    if (!status_) {
        kill(pid_, SIGKILL);
        wait_exit(10s);
    }
}

void Process::signal(int signal) const {
    if (!status_) kill(pid_, signal);
}

std::optional<int> Process::wait_exit(std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!status_) {
        int raw = 0;
        const pid_t done = waitpid(pid_, &raw, WNOHANG);
        if (done == pid_) {
            status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
            break;
        }
        if (std::chrono::steady_clock::now() > until) break;
        // Polls the process state (waitpid has no timeout).
        std::this_thread::sleep_for(20ms);
    }
    return status_;
}

Cluster::Cluster(std::vector<std::string> coordinator_flags)
    : coordinator_flags_(std::move(coordinator_flags)) {
    std::random_device random;
    dir = (std::filesystem::temp_directory_path() /
           ("sparring-it-" + std::to_string(random()) + std::to_string(random())))
              .string();
    std::filesystem::create_directories(dir);
    db = dir + "/coordinator.db";
    const std::string tool = binary("coordinator/sparring-coordinator");
    const CommandResult user = run({tool, "token", "create", "--db", db, "--role", "user"});
    const CommandResult worker = run({tool, "token", "create", "--db", db, "--role", "worker"});
    if (user.status != 0 || worker.status != 0)
        throw std::runtime_error("token create failed: " + user.err + worker.err);
    user_token = user.out.substr(0, user.out.find('\n'));
    worker_token = worker.out.substr(0, worker.out.find('\n'));
    start_coordinator();
}

Cluster::~Cluster() {
    workers_.clear();
    coordinator_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

void Cluster::start_coordinator() {
    const std::string port_file = dir + "/port";
    std::filesystem::remove(port_file);
    std::vector<std::string> argv = {
        binary("coordinator/sparring-coordinator"), "serve",       "--db",   db, "--listen",
        "127.0.0.1:" + std::to_string(port_),       "--port-file", port_file};
    argv.insert(argv.end(), coordinator_flags_.begin(), coordinator_flags_.end());
    coordinator_ = std::make_unique<Process>(
        argv, dir + "/coordinator-" + std::to_string(++coordinator_starts_) + ".log",
        coordinator_environment);
    for (int i = 0; i < 1000 && !std::filesystem::exists(port_file); ++i) {
        if (coordinator_->wait_exit(10ms)) break;
    }
    if (!std::filesystem::exists(port_file)) {
        dump_logs();
        throw std::runtime_error("the coordinator did not start");
    }
    port_ = std::stoi(slurp(port_file));
    address = "127.0.0.1:" + std::to_string(port_);
}

void Cluster::stop_coordinator(int signal) {
    coordinator_->signal(signal);
    if (!coordinator_->wait_exit(30s)) throw std::runtime_error("the coordinator did not exit");
}

std::vector<std::string> build_worker_flags() {
    if (kAddressSanitizer) return {"--engine-memory-headroom-mb", "0"};
    return {};
}

Process& Cluster::start_worker(const std::string& name, int concurrency,
                               const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {binary("worker/sparring-worker"),
                                     "--coordinator",
                                     address,
                                     "--token",
                                     worker_token,
                                     "--concurrency",
                                     std::to_string(concurrency),
                                     "--name",
                                     name};
    if (!tls_ca.empty()) argv.insert(argv.end(), {"--tls-ca", tls_ca});
    const std::vector<std::string> build_flags = build_worker_flags();
    argv.insert(argv.end(), build_flags.begin(), build_flags.end());
    // The test engines are scripts of the build's files, which write markers beside them: they
    // run unconfined unless a test asks for the sandbox (test_engine_sandbox.cpp does).
    if (std::find(extra.begin(), extra.end(), "--engine-sandbox") == extra.end())
        argv.insert(argv.end(), {"--engine-sandbox", "off", "--allow-unconfined-engines"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    workers_.push_back(std::make_unique<Process>(argv, dir + "/worker-" + name + ".log"));
    return *workers_.back();
}

CommandResult Cluster::run(const std::vector<std::string>& argv) const {
    static std::atomic<int> counter{0};
    const std::string base = dir + "/command-" + std::to_string(++counter);
    const std::string out_path = base + ".out";
    const std::string err_path = base + ".err";
    std::vector<char*> args = exec_args(argv);
    const pid_t pid = fork();
    if (pid == 0) {
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        execv(args[0], args.data());
        _exit(127);
    }
    int raw = 0;
    waitpid(pid, &raw, 0);
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), slurp(out_path),
            slurp(err_path)};
}

std::string Cluster::create_token(const std::string& role, const std::string& name) const {
    const CommandResult made = run({binary("coordinator/sparring-coordinator"), "token", "create",
                                    "--db", db, "--role", role, "--name", name});
    if (made.status != 0) throw std::runtime_error("token create failed: " + made.err);
    return made.out.substr(0, made.out.find('\n'));
}

CommandResult Cluster::cli(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {binary("cli/sparring")};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--coordinator", address, "--token", user_token});
    if (!tls_ca.empty()) argv.insert(argv.end(), {"--tls-ca", tls_ca});
    return run(argv);
}

int64_t Cluster::query(const std::string& sql) const {
    coordinator::Database database(db);
    coordinator::Statement& s = database.prepare(sql);
    s.bind();
    const int64_t value = s.step() ? s.int64(0) : -1;
    s.reset();
    return value;
}

void Cluster::dump_logs() const {
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".log")
            std::cerr << "==== " << entry.path().filename() << "\n"
                      << slurp(entry.path().string()) << "\n";
}

std::unique_ptr<v1::UserService::Stub> Cluster::users() const {
    return v1::UserService::NewStub(rpc::make_channel({address, "", tls_ca}));
}

std::unique_ptr<v1::WorkerService::Stub> Cluster::workers() const {
    return v1::WorkerService::NewStub(rpc::make_channel({address, "", tls_ca}));
}

std::unique_ptr<grpc::ClientContext> Cluster::context(const std::string& token,
                                                      std::chrono::seconds deadline) {
    auto context = std::make_unique<grpc::ClientContext>();
    rpc::prepare(*context, token, deadline);
    return context;
}

v1::RunStatus Cluster::get_run(int64_t run_id) const {
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::RunStatus run;
    if (!users()->GetRun(context(user_token).get(), request, &run).ok()) run.Clear();
    return run;
}

v1::RunStatus Cluster::wait_for_run(int64_t run_id, std::chrono::seconds timeout) const {
    auto stub = users();
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::RunStatus run;
    wait_until(
        [&] {
            run.Clear();
            return stub->GetRun(context(user_token).get(), request, &run).ok() &&
                   run.state() != v1::RUN_STATE_ACTIVE;
        },
        timeout, 250ms);
    return run;
}

void Cluster::add_version(const std::string& name, const std::string& overrides) const {
    std::vector<std::string> args = {"versions", "add", name};
    if (!overrides.empty()) args.insert(args.end(), {"--set", overrides});
    const CommandResult r = cli(args);
    if (r.status != 0) throw std::runtime_error("versions add " + name + ": " + r.err);
}

}  // namespace sparring::testing

namespace sparring::testing {

int64_t register_worker(v1::WorkerService::Stub& stub, const std::string& token,
                        const std::string& name, const v1::WorkerIdentity& identity) {
    v1::RegisterRequest request;
    request.set_name(name);
    request.set_cores(1);
    request.set_memory_mb(1024);
    request.set_concurrency(1);
    if (identity.ByteSizeLong() > 0) *request.mutable_identity() = identity;
    v1::RegisterResponse response;
    if (!stub.Register(Cluster::context(token).get(), request, &response).ok()) return 0;
    return response.worker_id();
}

grpc::Status request_work(v1::WorkerService::Stub& stub, const std::string& token, int64_t worker,
                          v1::RequestWorkResponse* work) {
    v1::RequestWorkRequest request;
    request.set_worker_id(worker);
    return stub.RequestWork(Cluster::context(token).get(), request, work);
}

v1::RunSpec fixed_games_spec(uint64_t games) {
    v1::RunSpec s;
    s.set_kind(v1::RUN_KIND_FIXED_GAMES);
    s.set_test_version("a");
    s.set_base_version("b");
    s.mutable_time_control()->set_nodes(300);
    for (const char* move : {"e2e4", "d2d4"}) {
        v1::Opening* o = s.mutable_book()->add_openings();
        o->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        o->add_moves(move);
    }
    s.set_games(games);
    return s;
}

HeldLease hold_lease(Cluster& cluster, v1::WorkerService::Stub& workers, uint64_t games) {
    HeldLease held;
    for (const char* name : {"a", "b"}) {
        const CommandResult added = cluster.cli({"versions", "add", name, "--bench", "1"});
        if (added.status != 0) {
            std::cerr << "hold_lease: versions add " << name << ": " << added.err << "\n";
            return held;
        }
    }
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(games);
    v1::RunStatus run;
    const grpc::Status submitted =
        cluster.users()->SubmitRun(Cluster::context(cluster.user_token).get(), submit, &run);
    held.worker_id = register_worker(workers, cluster.worker_token);
    v1::RequestWorkResponse work;
    const grpc::Status leased = request_work(workers, cluster.worker_token, held.worker_id, &work);
    if (!submitted.ok() || !leased.ok() || !work.has_lease()) {
        std::cerr << "hold_lease: " << submitted.error_message() << " " << leased.error_message()
                  << "\n";
        return held;
    }
    held.run_id = run.id();
    held.lease_id = work.lease().lease_id();
    return held;
}

v1::ReportResultsRequest report(int64_t worker, int64_t lease, uint32_t sequence,
                                std::vector<uint32_t> indices) {
    v1::ReportResultsRequest r;
    r.set_worker_id(worker);
    r.set_lease_id(lease);
    r.set_sequence(sequence);
    for (uint32_t i : indices) {
        v1::GamePair* p = r.add_pairs();
        p->set_index(i);
        p->mutable_first()->set_outcome(v1::GAME_OUTCOME_WIN);
        p->mutable_first()->set_test_white(true);
        p->mutable_first()->set_pgn("[Result \"1-0\"]\n\n1-0\n");
        p->mutable_second()->set_outcome(v1::GAME_OUTCOME_DRAW);
        p->mutable_second()->set_test_white(false);
        p->mutable_second()->set_pgn("[Result \"1/2-1/2\"]\n\n1/2-1/2\n");
    }
    return r;
}

}  // namespace sparring::testing
