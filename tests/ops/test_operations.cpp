// Operating the coordinator, end to end on 127.0.0.1: the Prometheus endpoint scraped after
// real calls (and while a slow client holds a connection), the structured log, configuration from
// the environment, and an online backup taken while runs are being written, then restored and
// served.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "service/cluster.h"
#include "service/loopback.h"
#include "service/needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

// Returns a port that was free a moment ago on 127.0.0.1.
int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t size = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    close(fd);
    return ntohs(address.sin_port);
}

// Sends one HTTP request to 127.0.0.1:port and returns the whole response.
std::string http(int port, const std::string& request_line) {
    const int fd = connect_to(port);
    if (fd < 0) return "";
    const std::string request = request_line + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string response;
    char buffer[4096];
    for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;)
        response.append(buffer, size_t(n));
    close(fd);
    return response;
}

// Returns the body of an HTTP response.
std::string body_of(const std::string& response) {
    const size_t end = response.find("\r\n\r\n");
    return end == std::string::npos ? "" : response.substr(end + 4);
}

// Returns the declared type of a metric family in an exposition, empty if none is declared.
std::string type_of(const std::string& exposition, const std::string& family) {
    std::istringstream in(exposition);
    const std::string prefix = "# TYPE " + family + " ";
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(prefix)) return line.substr(prefix.size());
    return "";
}

// Returns the value of the one sample with this name whose labels include these; nullopt if
// none does, NaN if several do.
std::optional<double> sample(const std::string& exposition, const std::string& name,
                             const std::map<std::string, std::string>& labels = {}) {
    std::istringstream in(exposition);
    std::optional<double> found;
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(name) || line.size() == name.size()) continue;
        const char next = line[name.size()];
        if (next != '{' && next != ' ') continue;
        const std::string label_set = line.substr(name.size(), line.rfind(' ') - name.size());
        bool match = true;
        for (const auto& [key, value] : labels) {
            const std::string pair = key + "=\"" + value + "\"";
            match = match && (label_set.find("{" + pair) != std::string::npos ||
                              label_set.find("," + pair) != std::string::npos);
        }
        if (!match) continue;
        if (found) return std::nan("");
        found = std::stod(line.substr(line.rfind(' ') + 1));
    }
    return found;
}

// Returns how promtool judges an exposition: its exit status and output, or nullopt when
// promtool (Debian package prometheus) is not installed.
std::optional<CommandResult> promtool_check(Cluster& cluster, const std::string& exposition) {
    const char* promtool = "/usr/bin/promtool";
    if (access(promtool, X_OK) != 0) return std::nullopt;
    const std::string path = cluster.dir + "/metrics.txt";
    std::ofstream(path) << exposition;
    return cluster.run({"/bin/sh", "-c", std::string(promtool) + " check metrics < " + path});
}

// Returns a file's contents.
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Returns how many lines of a text contain every one of the needles.
int count_lines(const std::string& text, std::initializer_list<std::string> needles) {
    std::istringstream in(text);
    int count = 0;
    for (std::string line; std::getline(in, line);) {
        bool all = true;
        for (const std::string& n : needles) all = all && line.find(n) != std::string::npos;
        count += all;
    }
    return count;
}

// Runs a query on an SQLite file and returns the first column of the first row as text.
std::string query_text(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

class OperationsTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Adds versions a and b with fixed bench numbers and submits a run; returns its id.
    int64_t submit_run(uint64_t games) {
        for (const char* name : {"a", "b"}) {
            const CommandResult r = cluster->cli({"versions", "add", name, "--bench", "1"});
            EXPECT_EQ(r.status, 0) << r.err;
        }
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        v1::RunStatus run;
        EXPECT_TRUE(cluster->users()
                        ->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run)
                        .ok());
        return run.id();
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(OperationsTest, MetricsEndpointReportsCallsReportsAndRuns) {
    const int port = free_port();
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--metrics-listen", "127.0.0.1:" + std::to_string(port)});
    const int64_t run_id = submit_run(20);
    auto stub = cluster->workers();
    const int64_t worker = register_worker(*stub, cluster->worker_token);
    ASSERT_NE(worker, 0);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    for (int i = 0; i < 2; ++i) {
        v1::ReportResultsResponse ack;
        ASSERT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                        report(worker, work.lease().lease_id(), 1, {0}), &ack)
                        .ok());
        EXPECT_EQ(ack.duplicate(), i == 1);
    }
    v1::ListRunsResponse runs;
    EXPECT_EQ(
        cluster->users()->ListRuns(Cluster::context("spu_forged").get(), {}, &runs).error_code(),
        grpc::StatusCode::UNAUTHENTICATED);

    const std::string response = http(port, "GET /metrics HTTP/1.1");
    ASSERT_TRUE(response.starts_with("HTTP/1.1 200 OK\r\n")) << response;
    EXPECT_NE(response.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
    const std::string m = body_of(response);
    if (const auto check = promtool_check(*cluster, m)) {
        EXPECT_EQ(check->status, 0) << check->out << check->err;
    }
    EXPECT_EQ(type_of(m, "sparring_rpc_duration_seconds"), "histogram");
    EXPECT_EQ(sample(m, "sparring_workers_connected"), 1);
    EXPECT_EQ(sample(m, "sparring_leases_outstanding"), 1);
    EXPECT_EQ(sample(m, "sparring_runs_active"), 1);
    EXPECT_EQ(sample(m, "sparring_reports_total", {{"outcome", "counted"}}), 1);
    EXPECT_EQ(sample(m, "sparring_reports_total", {{"outcome", "duplicate"}}), 1);
    EXPECT_EQ(sample(m, "sparring_games_total"), 2);
    const std::string run = std::to_string(run_id);
    EXPECT_EQ(sample(m, "sparring_run_games", {{"run", run}, {"test", "a"}, {"base", "b"}}), 2);
    EXPECT_EQ(sample(m, "sparring_run_games_max", {{"run", run}}), 20);
    EXPECT_EQ(sample(m, "sparring_rpc_requests_total",
                     {{"method", "WorkerService/ReportResults"}, {"code", "OK"}}),
              2);
    EXPECT_EQ(sample(m, "sparring_rpc_requests_total",
                     {{"method", "UserService/ListRuns"}, {"code", "UNAUTHENTICATED"}}),
              1);
    EXPECT_EQ(sample(m, "sparring_rpc_duration_seconds_count",
                     {{"method", "WorkerService/ReportResults"}}),
              2);
    EXPECT_GE(sample(m, "sparring_sqlite_transaction_duration_seconds_count", {{"kind", "write"}}),
              4);
    EXPECT_GT(sample(m, "sparring_sqlite_transaction_duration_seconds_sum", {{"kind", "write"}}),
              0);

    EXPECT_TRUE(http(port, "GET /other HTTP/1.1").starts_with("HTTP/1.1 404 ")) << "404";
    EXPECT_TRUE(http(port, "POST /metrics HTTP/1.1").starts_with("HTTP/1.1 405 ")) << "405";

    // Each event is logged once, as a logfmt line with a level.
    const std::string log = slurp(cluster->dir + "/coordinator-1.log");
    EXPECT_EQ(count_lines(log, {"level=info", "event=worker_registered",
                                "worker=" + std::to_string(worker)}),
              1)
        << log;
    EXPECT_EQ(count_lines(log, {"level=info", "event=run_submitted", "run=" + run}), 1) << log;
    EXPECT_EQ(count_lines(log, {"level=warn", "event=rpc_failed", "code=UNAUTHENTICATED"}), 1)
        << log;
    EXPECT_EQ(count_lines(log, {"event=report"}), 0) << "reports are logged at debug level";
}

// Under CI=true a test whose tool is missing fails instead of skipping, so that CI cannot pass
// by skipping what the test job failed to install.
TEST(SkipWithout, FailsUnderCi) {
    const char* before = std::getenv("CI");
    const std::string saved = before ? before : "";
    setenv("CI", "true", 1);
    EXPECT_FATAL_FAILURE(([] { SPARRING_SKIP_WITHOUT("needs a tool"); })(),
                         "needs a tool (CI=true");
    if (before)
        setenv("CI", saved.c_str(), 1);
    else
        unsetenv("CI");
}

TEST_F(OperationsTest, PromtoolAcceptsTheExposition) {
    const int port = free_port();
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--metrics-listen", "127.0.0.1:" + std::to_string(port)});
    submit_run(20);
    const auto check = promtool_check(*cluster, body_of(http(port, "GET /metrics HTTP/1.1")));
    if (!check) SPARRING_SKIP_WITHOUT("promtool (Debian package prometheus) is not installed");
    EXPECT_EQ(check->status, 0) << check->out << check->err;
}

TEST_F(OperationsTest, SlowClientDoesNotDelayAnotherScrape) {
    const int port = free_port();
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--metrics-listen", "127.0.0.1:" + std::to_string(port)});
    // Slow clients send their request's headers, then one byte a second of a last header;
    // each holds one of the listener's 8 threads, and the rest serve the scrapes.
    constexpr int kSlow = 6;
    std::vector<int> slow;
    const std::string head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    for (int i = 0; i < kSlow; ++i) {
        slow.push_back(connect_to(port));
        ASSERT_GE(slow.back(), 0);
        send(slow.back(), head.data(), head.size(), MSG_NOSIGNAL);
    }
    std::thread trickle([&slow] {
        for (const char c : std::string("X: 1")) {
            for (const int fd : slow) send(fd, &c, 1, MSG_NOSIGNAL);
            std::this_thread::sleep_for(1s);  // the slow clients' pace, under test
        }
        for (const int fd : slow) send(fd, "\r\n\r\n", 4, MSG_NOSIGNAL);
    });
    for (int i = 0; i < 3; ++i) {
        std::this_thread::sleep_for(1s);  // the scrapes span the slow clients' trickle
        const auto start = std::chrono::steady_clock::now();
        const std::string response = http(port, "GET /metrics HTTP/1.1");
        const auto elapsed = std::chrono::steady_clock::now() - start;
        EXPECT_TRUE(response.starts_with("HTTP/1.1 200 OK\r\n")) << response;
        EXPECT_LT(elapsed, 500ms) << "scrape " << i << " waited for the slow clients";
    }
    trickle.join();
    for (const int fd : slow) {
        std::string response;
        char buffer[4096];
        for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;)
            response.append(buffer, size_t(n));
        close(fd);
        EXPECT_TRUE(response.starts_with("HTTP/1.1 200 OK\r\n")) << "a slow client is served too";
    }
}

TEST_F(OperationsTest, OversizedRequestHeadersAreRefused) {
    const int port = free_port();
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--metrics-listen", "127.0.0.1:" + std::to_string(port)});
    std::string many;
    for (int i = 0; i < 200; ++i)
        many += "\r\nX-" + std::to_string(i) + ": " + std::string(100, 'a');
    EXPECT_TRUE(http(port, "GET /metrics HTTP/1.1" + many).starts_with("HTTP/1.1 431 "));
    EXPECT_TRUE(http(port, "GET /metrics HTTP/1.1\r\nX-Long: " + std::string(10000, 'a'))
                    .starts_with("HTTP/1.1 400 "));
    EXPECT_TRUE(http(port, "GET /metrics HTTP/1.1" + many.substr(0, 5000))
                    .starts_with("HTTP/1.1 200 OK\r\n"));
}

TEST_F(OperationsTest, EnvironmentVariablesConfigureTheCoordinator) {
    const int port = free_port();
    setenv("SPARRING_METRICS_LISTEN", ("127.0.0.1:" + std::to_string(port)).c_str(), 1);
    setenv("SPARRING_LOG_LEVEL", "debug", 1);
    cluster = std::make_unique<Cluster>();
    unsetenv("SPARRING_METRICS_LISTEN");
    unsetenv("SPARRING_LOG_LEVEL");
    submit_run(20);
    EXPECT_TRUE(http(port, "GET /metrics HTTP/1.1").starts_with("HTTP/1.1 200 OK\r\n"));
    // At debug level a granted lease is logged.
    auto stub = cluster->workers();
    const int64_t worker = register_worker(*stub, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const std::string log = slurp(cluster->dir + "/coordinator-1.log");
    EXPECT_EQ(count_lines(log, {"level=debug", "event=lease_granted",
                                "lease=" + std::to_string(work.lease().lease_id())}),
              1)
        << log;

    setenv("SPARRING_LOG_LEVEL", "chatty", 1);
    const CommandResult bad = cluster->run(
        {binary("coordinator/sparring-coordinator"), "serve", "--db", cluster->dir + "/other.db"});
    unsetenv("SPARRING_LOG_LEVEL");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--log-level"), std::string::npos) << bad.err;
}

// Calls a unary method with a raw request over plaintext; returns the status and response.
std::pair<grpc::StatusCode, std::string> raw_call(int port, const std::string& method,
                                                  const std::string& request) {
    grpc::GenericStub stub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                               grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    grpc::Slice slice(request);
    grpc::ByteBuffer in(&slice, 1);
    grpc::ByteBuffer out;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &in, &out,
                   [&done](grpc::Status status) { done.set_value(std::move(status)); });
    const grpc::Status status = done.get_future().get();
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (status.ok() && out.Dump(&slices).ok())
        for (const grpc::Slice& s : slices)
            bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    return {status.error_code(), bytes};
}

TEST_F(OperationsTest, HealthPortServesHealthCheckingAloneInPlaintext) {
    const int port = free_port();
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--health-listen", "127.0.0.1:" + std::to_string(port)});
    // grpc.health.v1.HealthCheckRequest{service: ""} is empty; SERVING is field 1 = 1.
    const auto [code, response] = raw_call(port, "/grpc.health.v1.Health/Check", "");
    EXPECT_EQ(code, grpc::StatusCode::OK);
    EXPECT_EQ(response, std::string("\x08\x01", 2));
    EXPECT_EQ(raw_call(port, "/sparring.v1.UserService/ListRuns", "").first,
              grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(OperationsTest, OnlineBackupIsConsistentAndRestores) {
    cluster = std::make_unique<Cluster>();
    submit_run(20);
    // A writer submits runs as fast as the coordinator takes them during the backups.
    std::atomic<int64_t> acknowledged{1};
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        auto users = cluster->users();
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(20);
        while (!stop) {
            v1::RunStatus run;
            if (users->SubmitRun(Cluster::context(cluster->user_token).get(), request, &run).ok())
                ++acknowledged;
        }
    });
    wait_until([&] { return acknowledged >= 20; }, 10s, 10ms);
    if (acknowledged < 20) {
        stop = true;
        writer.join();
        FAIL() << "the coordinator acknowledged only " << acknowledged << " runs in 10 s";
    }

    const std::string copy = cluster->dir + "/backup.db";
    for (int round = 0; round < 3; ++round) {
        const int64_t before = acknowledged;
        const CommandResult r = cluster->run({binary("coordinator/sparring-coordinator"), "backup",
                                              "--db", cluster->db, "--to", copy});
        const int64_t after = acknowledged;
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(query_text(copy, "PRAGMA integrity_check"), "ok");
        EXPECT_EQ(query_text(copy, "PRAGMA journal_mode"), "delete");
        const int64_t runs = std::stoll(query_text(copy, "SELECT count(*) FROM runs"));
        EXPECT_GE(runs, before) << "a run acknowledged before the backup is missing";
        EXPECT_LE(runs, after + 1) << "the copy holds runs never acknowledged";
    }
    stop = true;
    writer.join();
    EXPECT_FALSE(std::filesystem::exists(copy + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(copy + ".partial"));

    // Restore: a coordinator serves the copy, with its tokens and runs.
    const std::string restored = cluster->dir + "/restored.db";
    std::filesystem::copy_file(copy, restored);
    const std::string port_file = cluster->dir + "/restored.port";
    Process server({binary("coordinator/sparring-coordinator"), "serve", "--db", restored,
                    "--listen", "127.0.0.1:0", "--port-file", port_file},
                   cluster->dir + "/restored.log");
    wait_until([&] { return std::filesystem::exists(port_file); }, 5s, 10ms);
    ASSERT_TRUE(std::filesystem::exists(port_file)) << slurp(cluster->dir + "/restored.log");
    cluster->address = "127.0.0.1:" + std::to_string(std::stoi(slurp(port_file)));
    const int64_t last = std::stoll(query_text(copy, "SELECT max(id) FROM runs"));
    auto users = cluster->users();
    for (const int64_t id : {last, last + 1}) {
        v1::GetRunRequest get;
        get.set_run_id(id);
        v1::RunStatus status;
        EXPECT_EQ(
            users->GetRun(Cluster::context(cluster->user_token).get(), get, &status).error_code(),
            id == last ? grpc::StatusCode::OK : grpc::StatusCode::NOT_FOUND);
    }

    const CommandResult missing =
        cluster->run({binary("coordinator/sparring-coordinator"), "backup", "--db",
                      cluster->dir + "/none.db", "--to", copy});
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("none.db"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace sparring::testing
