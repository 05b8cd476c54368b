// Notifications of runs' ends (issue 31, item 5; issue 49, item 3): a real coordinator posts
// them to receivers the test runs on 127.0.0.1 — the operator's --notify-url and a user's own
// URL, which an entry of --notify-allow (HOST:PORT[/PATH]) must let through. Each run that ends
// is delivered once per URL with an id, retried while the receiver is down, and still delivered
// (once) after the coordinator is killed and restarted in between. A receiver that trickles its
// answer a byte at a time costs only itself: its POSTs are cut at the deadline, its notices end
// failed, and SIGTERM ends the coordinator at once. A URL cleared, or off the list after a
// restart, gets nothing more. The notifier reads its outbox when a run ends, not on a timer.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cluster.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/notifications.h"
#include "coordinator/kinds/registry.h"
#include "coordinator/ops/notifier.h"
#include "coordinator/storage/executor.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

// An HTTP receiver on 127.0.0.1 that records every POST and answers 200, or 503 while down.
class Receiver {
  public:
    struct Post {
        std::string path;
        std::string key;  // Idempotency-Key
        nlohmann::json body;
        int status = 0;  // what it answered
    };

    Receiver() {
        server_.Post(R"(/.*)", [this](const httplib::Request& request, httplib::Response& reply) {
            std::lock_guard lock(mutex_);
            reply.status = down_ ? 503 : 200;
            posts_.push_back({request.path, request.get_header_value("Idempotency-Key"),
                              nlohmann::json::parse(request.body, nullptr, false), reply.status});
        });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
    }
    ~Receiver() {
        server_.stop();
        thread_.join();
    }

    int port() const { return port_; }
    void set_down(bool down) {
        std::lock_guard lock(mutex_);
        down_ = down;
    }
    std::vector<Post> posts() const {
        std::lock_guard lock(mutex_);
        return posts_;
    }
    // Returns the POSTs to a path about a run, and how many it answered 200.
    std::pair<std::vector<Post>, int> about(const std::string& path, int64_t run) const {
        std::vector<Post> out;
        int delivered = 0;
        for (const Post& p : posts())
            if (p.path == path && p.body.is_object() && p.body.value("run", int64_t(0)) == run) {
                out.push_back(p);
                delivered += p.status == 200;
            }
        return {out, delivered};
    }
    // Waits until a path was answered 200 about a run, up to timeout.
    bool wait_delivered(const std::string& path, int64_t run, std::chrono::seconds timeout) const {
        return wait_until([&] { return about(path, run).second > 0; }, timeout, 50ms);
    }

  private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    mutable std::mutex mutex_;
    bool down_ = false;
    std::vector<Post> posts_;
};

// A receiver that reads a request and then answers it one byte every `interval` (the whole
// answer would take 40 of them): each read gets a byte in time, so only a deadline for the
// whole POST ends it. It records when each connection came and when the caller hung up.
class SlowReceiver {
  public:
    using Clock = std::chrono::steady_clock;
    struct Connection {
        std::string request_line;
        Clock::time_point opened;
        Clock::time_point closed;
        bool is_closed = false;
    };

    explicit SlowReceiver(std::chrono::milliseconds interval) : interval_(interval) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
            ::listen(listener_, 16) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { accept_loop(); });
    }
    ~SlowReceiver() {
        stopping_ = true;
        ::shutdown(listener_, SHUT_RDWR);
        thread_.join();
        ::close(listener_);
        for (std::thread& handler : handlers_) handler.join();
    }

    int port() const { return port_; }
    std::vector<Connection> connections() const {
        std::lock_guard lock(mutex_);
        return connections_;
    }
    // Returns how many connections the caller has not hung up yet.
    int open() const {
        int n = 0;
        for (const Connection& c : connections()) n += !c.is_closed;
        return n;
    }

  private:
    void accept_loop() {
        while (true) {
            const int socket = ::accept(listener_, nullptr, nullptr);
            if (socket < 0) return;
            std::lock_guard lock(mutex_);
            connections_.push_back({"", Clock::now(), {}, false});
            handlers_.emplace_back(
                [this, socket, index = connections_.size() - 1] { serve(socket, index); });
        }
    }
    void serve(int socket, size_t index) {
        const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        std::string request;
        size_t sent = 0;
        while (!stopping_) {
            pollfd ready{socket, POLLIN, 0};
            const int events = ::poll(&ready, 1, int(interval_.count()));
            if (events > 0) {
                char buffer[4096];
                const ssize_t got = ::recv(socket, buffer, sizeof buffer, 0);
                if (got <= 0) break;  // the caller hung up
                request.append(buffer, size_t(got));
                std::lock_guard lock(mutex_);
                connections_[index].request_line = request.substr(0, request.find('\r'));
            } else if (events == 0 && request.find("\r\n\r\n") != std::string::npos &&
                       sent < answer.size()) {
                if (::send(socket, &answer[sent], 1, MSG_NOSIGNAL) != 1) break;
                ++sent;
            }
        }
        std::lock_guard lock(mutex_);
        connections_[index].closed = Clock::now();
        connections_[index].is_closed = true;
        ::close(socket);
    }

    std::chrono::milliseconds interval_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_ = false;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::vector<Connection> connections_;
    std::vector<std::thread> handlers_;
};

class NotifyTest : public ::testing::Test {
  protected:
    // Starts a coordinator posting to receiver's /hook, with the flags given, and alice.
    void start(std::vector<std::string> flags) {
        hook = "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook";
        mine = "http://127.0.0.1:" + std::to_string(receiver.port()) + "/alice";
        flags.insert(flags.begin(), {"--notify-url", hook});
        cluster = std::make_unique<Cluster>(flags);
        const CommandResult made =
            cluster->run({binary("coordinator/sparring-coordinator"), "token", "create", "--db",
                          cluster->db, "--role", "user", "--name", "alice"});
        ASSERT_EQ(made.status, 0) << made.err;
        alice = made.out.substr(0, made.out.find('\n'));
        cluster->add_version("a");
        cluster->add_version("b");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    CommandResult cli_as(const std::string& token, std::vector<std::string> args) const {
        args.insert(args.begin(), binary("cli/sparring"));
        args.insert(args.end(), {"--coordinator", cluster->address, "--token", token});
        return cluster->run(args);
    }

    // Submits a fixed-games run of 4 pairs with a token and plays it out over gRPC: one lease,
    // one report. Returns the run's id.
    int64_t finish_run(const std::string& token) {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(8);
        v1::RunStatus run;
        EXPECT_TRUE(cluster->users()->SubmitRun(Cluster::context(token).get(), request, &run).ok());
        auto stub = cluster->workers();
        const int64_t worker = register_worker(*stub, cluster->worker_token);
        v1::RequestWorkResponse work;
        EXPECT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
        EXPECT_EQ(work.lease().run_id(), run.id());
        std::vector<uint32_t> pairs;
        for (int i = 0; i < work.lease().openings_size(); ++i) pairs.push_back(uint32_t(i));
        v1::ReportResultsResponse ack;
        EXPECT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                        report(worker, work.lease().lease_id(), 1, pairs), &ack)
                        .ok());
        EXPECT_EQ(cluster->wait_for_run(run.id(), 10s).state(), v1::RUN_STATE_FINISHED);
        return run.id();
    }

    // Returns the number of notifications to a URL in a state.
    int64_t notices(const std::string& url, const std::string& state) const {
        return cluster->query("SELECT count(*) FROM notifications WHERE url = '" + url +
                              "' AND state = '" + state + "'");
    }

    Receiver receiver;
    std::string hook, mine, alice;
    std::unique_ptr<Cluster> cluster;
};

TEST_F(NotifyTest, EachRunsEndIsDeliveredOncePerUrlAcrossARestart) {
    start({"--notify-allow", "127.0.0.1:" + std::to_string(receiver.port()), "--public-url",
           "https://sparring.example/"});
    // A user names a URL of their own; a host off the operator's list is refused.
    const CommandResult set = cli_as(alice, {"notify", mine});
    ASSERT_EQ(set.status, 0) << set.err;
    EXPECT_NE(set.out.find("alice: each run's end is posted to " + mine), std::string::npos)
        << set.out;
    const CommandResult elsewhere = cli_as(alice, {"notify", "http://203.0.113.9/steal"});
    EXPECT_NE(elsewhere.status, 0);
    EXPECT_NE(elsewhere.err.find("--notify-allow"), std::string::npos) << elsewhere.err;
    const CommandResult malformed = cli_as(alice, {"notify", "ftp://127.0.0.1/x"});
    EXPECT_NE(malformed.err.find("only http and https"), std::string::npos) << malformed.err;
    EXPECT_NE(cli_as(alice, {"notify"}).out.find(mine), std::string::npos);

    // Alice's run ends: the operator's hook and her URL each get it, once.
    const int64_t first = finish_run(alice);
    ASSERT_TRUE(receiver.wait_delivered("/hook", first, 15s));
    ASSERT_TRUE(receiver.wait_delivered("/alice", first, 15s));
    const auto [posts, delivered] = receiver.about("/hook", first);
    ASSERT_EQ(posts.size(), 1u);
    const nlohmann::json& body = posts[0].body;
    EXPECT_EQ(body["event"], "run_ended");
    EXPECT_EQ(body["owner"], "alice");
    EXPECT_EQ(body["test"], "a");
    EXPECT_EQ(body["base"], "b");
    EXPECT_EQ(body["state"], "finished");
    EXPECT_EQ(body["result"], "completed");
    EXPECT_EQ(body["games"], 8);
    EXPECT_TRUE(body.contains("elo") && body.contains("elo_low") && body.contains("elo_high"));
    EXPECT_EQ(body["link"], "https://sparring.example/runs/" + std::to_string(first));
    EXPECT_EQ(posts[0].key, std::to_string(body["id"].get<int64_t>()));
    EXPECT_NE(receiver.about("/alice", first).first[0].key, posts[0].key);

    // The receiver is down when the next run ends: the coordinator retries, is killed, and
    // after its restart delivers the notice once, with the same id as its attempts before.
    receiver.set_down(true);
    const int64_t second = finish_run(cluster->user_token);
    wait_until([&] { return receiver.about("/hook", second).first.size() >= 2; }, 15s, 50ms);
    ASSERT_GE(receiver.about("/hook", second).first.size(), 2u) << "no retry while down";
    cluster->stop_coordinator(SIGKILL);
    receiver.set_down(false);
    cluster->start_coordinator();
    ASSERT_TRUE(receiver.wait_delivered("/hook", second, 30s));
    // A post that must not come: a second round of the outbox passes and sends nothing more.
    std::this_thread::sleep_for(1500ms);
    const auto [attempts, once] = receiver.about("/hook", second);
    EXPECT_EQ(once, 1);
    for (const Receiver::Post& p : attempts) EXPECT_EQ(p.key, attempts[0].key);
    EXPECT_EQ(receiver.about("/alice", second).first.size(), 0u) << "not alice's run";
    EXPECT_EQ(receiver.about("/hook", first).second, 1);
    EXPECT_EQ(receiver.about("/alice", first).second, 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM notifications WHERE delivered_ms = 0"), 0);

    // A stopped run is told too; after --clear alice's URL gets nothing more.
    ASSERT_EQ(cli_as(alice, {"notify", "--clear"}).status, 0);
    v1::SubmitRunRequest request;
    *request.mutable_spec() = fixed_games_spec(8);
    v1::RunStatus third;
    ASSERT_TRUE(cluster->users()->SubmitRun(Cluster::context(alice).get(), request, &third).ok());
    ASSERT_EQ(cli_as(alice, {"stop", std::to_string(third.id())}).status, 0);
    ASSERT_TRUE(receiver.wait_delivered("/hook", third.id(), 15s));
    EXPECT_EQ(receiver.about("/hook", third.id()).first[0].body["state"], "stopped");
    EXPECT_EQ(receiver.about("/alice", third.id()).first.size(), 0u);
}

// The list's entries name a port, and a path below which URLs may go.
TEST(NotifyAllow, EntriesNameAHostAPortAndAPathPrefix) {
    using coordinator::notify_allows;
    using coordinator::NotifyAllowEntry;
    using coordinator::parse_notify_allow;
    using coordinator::parse_notify_url;
    const auto entry = [](std::string_view text) {
        const absl::StatusOr<NotifyAllowEntry> parsed = parse_notify_allow(text);
        EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status();
        return parsed.value_or(NotifyAllowEntry{});
    };
    EXPECT_EQ(entry("Hooks.Example:8080"), (NotifyAllowEntry{"hooks.example", 8080, ""}));
    EXPECT_EQ(entry("[::1]:80/hooks"), (NotifyAllowEntry{"::1", 80, "/hooks"}));
    EXPECT_EQ(coordinator::to_string(entry("[::1]:80/hooks")), "[::1]:80/hooks");
    for (const char* bad :
         {"127.0.0.1", "127.0.0.1:", "h:0",      "h:65536",        "h:8o",        "http://h:1",
          "h:1/a?b",   "h:1/a#b",    "h:1/../x", "h:1/a/%2E%2e/x", "h:1/a/..;/x", "h:1/a%2fb",
          "h:1/a\\b",  "u@h:1",      "::1:80",   "[::1",           "[h]:1",       "h h:1",
          ":1",        "h:1:2",      "h:1//x"}) {
        const absl::Status refused = parse_notify_allow(bad).status();
        EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << bad;
        EXPECT_NE(refused.message().find("HOST:PORT"), std::string_view::npos) << refused;
    }

    const auto allows = [](const NotifyAllowEntry& e, std::string_view url) {
        const absl::StatusOr<coordinator::NotifyUrl> parsed = parse_notify_url(url);
        EXPECT_TRUE(parsed.ok()) << url << ": " << parsed.status();
        return parsed.ok() && notify_allows(e, *parsed);
    };
    const NotifyAllowEntry hooks = entry("127.0.0.1:8080/hooks");
    EXPECT_TRUE(allows(hooks, "http://127.0.0.1:8080/hooks"));
    EXPECT_TRUE(allows(hooks, "http://127.0.0.1:8080/hooks/alice?x=1"));
    EXPECT_TRUE(allows(hooks, "https://127.0.0.1:8080/hooks/"));
    EXPECT_FALSE(allows(hooks, "http://127.0.0.1:8080/hooksx"));
    EXPECT_FALSE(allows(hooks, "http://127.0.0.1:8080/other/hooks"));
    EXPECT_FALSE(allows(hooks, "http://127.0.0.1:8081/hooks"));
    EXPECT_FALSE(allows(hooks, "http://127.0.0.1/hooks"));  // port 80
    EXPECT_FALSE(allows(hooks, "http://127.0.0.2:8080/hooks"));
    const NotifyAllowEntry slash = entry("127.0.0.1:8080/hooks/");
    EXPECT_TRUE(allows(slash, "http://127.0.0.1:8080/hooks/a"));
    EXPECT_FALSE(allows(slash, "http://127.0.0.1:8080/hooks"));
    const NotifyAllowEntry any = entry("127.0.0.1:443");
    EXPECT_TRUE(allows(any, "https://127.0.0.1/anything"));
    EXPECT_FALSE(allows(any, "http://127.0.0.1/anything"));
    // A path that could mean another one to the receiver is refused before any matching.
    for (const char* sly :
         {"http://127.0.0.1:8080/hooks/../admin", "http://127.0.0.1:8080/hooks/%2e%2E/admin",
          "http://127.0.0.1:8080/hooks/.%2e;x/admin", "http://127.0.0.1:8080/hooks%2F..%2Fadmin",
          "http://127.0.0.1:8080/hooks/.", "http://127.0.0.1:8080/hooks\\..\\admin",
          "http://127.0.0.1:8080//evil.example/hooks"})
        EXPECT_EQ(parse_notify_url(sly).status().code(), absl::StatusCode::kInvalidArgument) << sly;
    EXPECT_TRUE(parse_notify_url("http://127.0.0.1:8080/hooks/a..b/.x").ok());

    const std::vector<std::string> list = {"127.0.0.1:8080/hooks", "[::1]:9000"};
    EXPECT_TRUE(coordinator::check_notify_url("http://127.0.0.1:8080/hooks/bob", list).ok());
    EXPECT_TRUE(coordinator::check_notify_url("http://[::1]:9000/x", list).ok());
    const absl::Status elsewhere =
        coordinator::check_notify_url("http://127.0.0.1:9000/hooks", list);
    EXPECT_EQ(elsewhere.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(elsewhere.message().find("--notify-allow"), std::string_view::npos) << elsewhere;
    EXPECT_NE(elsewhere.message().find("127.0.0.1:9000/hooks"), std::string_view::npos)
        << elsewhere;
}

// A receiver that trickles its answer holds up nobody else: the operator's notice of a run that
// ends meanwhile arrives at once; the slow POST is cut at the deadline (5 s) though a byte came
// every second; after its attempts (2) the notice ends failed, in the table and the log. The
// link names the dashboard's bound port (--http-listen asked for port 0).
TEST_F(NotifyTest, ASlowReceiverCostsOnlyItselfAndItsNoticeEndsFailed) {
    SlowReceiver slow(1000ms);
    const std::string slow_url = "http://127.0.0.1:" + std::to_string(slow.port()) + "/alice";
    const std::string http_port_file = ::testing::TempDir() + "/notify-http-port";
    start({"--notify-allow", "127.0.0.1:" + std::to_string(slow.port()) + "/alice",
           "--notify-timeout-seconds", "5", "--notify-attempts", "2", "--http-listen",
           "127.0.0.1:0", "--http-port-file", http_port_file});
    ASSERT_EQ(cli_as(alice, {"notify", slow_url}).status, 0);
    // The list's path holds: another path on the same host and port is refused.
    EXPECT_NE(
        cli_as(alice, {"notify", "http://127.0.0.1:" + std::to_string(slow.port()) + "/x"}).status,
        0);

    const int64_t first = finish_run(alice);
    ASSERT_TRUE(receiver.wait_delivered("/hook", first, 15s));
    ASSERT_TRUE(wait_until([&] { return slow.open() == 1; }, 10s, 20ms));
    EXPECT_EQ(slow.connections()[0].request_line, "POST /alice HTTP/1.1");
    // A run ends while the slow POST hangs: its notice does not wait for it.
    const auto ended = std::chrono::steady_clock::now();
    const int64_t second = finish_run(cluster->user_token);
    ASSERT_TRUE(receiver.wait_delivered("/hook", second, 15s));
    EXPECT_LT(std::chrono::steady_clock::now() - ended, 4000ms);
    EXPECT_EQ(slow.open(), 1) << "the slow POST should still be in flight";

    // Both attempts are cut at the deadline; then the notice is failed, and says why.
    ASSERT_TRUE(wait_until([&] { return notices(slow_url, "failed") == 1; }, 30s, 100ms));
    const std::vector<SlowReceiver::Connection> tried = slow.connections();
    ASSERT_EQ(tried.size(), 2u);
    for (const SlowReceiver::Connection& c : tried) {
        ASSERT_TRUE(c.is_closed);
        EXPECT_GT(c.closed - c.opened, 4500ms);
        EXPECT_LT(c.closed - c.opened, 7000ms);
    }
    EXPECT_EQ(notices(slow_url, "pending"), 0);
    EXPECT_EQ(cluster->query("SELECT attempts FROM notifications WHERE url = '" + slow_url + "'"),
              2);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM notifications WHERE url = '" + slow_url +
                             "' AND last_error LIKE 'no answer within 5 s%'"),
              1);
    EXPECT_EQ(count_in(cluster->dir + "/coordinator-1.log", "event=notification_undeliverable"),
              1u);
    std::this_thread::sleep_for(1500ms);
    EXPECT_EQ(slow.connections().size(), 2u) << "a failed notice is not tried again";

    const int http_port = std::stoi(slurp(http_port_file));
    const std::string link = "http://127.0.0.1:" + std::to_string(http_port) + "/runs/";
    EXPECT_EQ(receiver.about("/hook", first).first.at(0).body["link"],
              link + std::to_string(first));

    // The metrics count each attempt by what became of it.
    httplib::Client dashboard("127.0.0.1", http_port);
    const httplib::Result metrics = dashboard.Get("/metrics");
    ASSERT_TRUE(metrics);
    for (const char* line : {"sparring_notifications_total{outcome=\"delivered\"} 2",
                             "sparring_notifications_total{outcome=\"retried\"} 1",
                             "sparring_notifications_total{outcome=\"failed\"} 1"})
        EXPECT_NE(metrics->body.find(line), std::string::npos) << line << "\n" << metrics->body;
}

// SIGTERM ends the coordinator at once while a receiver holds a POST (whose deadline is a
// minute off); the notice stays in the outbox, unattempted, for the next start.
TEST_F(NotifyTest, SigtermEndsTheCoordinatorWhileAReceiverHangs) {
    SlowReceiver slow(1000ms);
    const std::string slow_url = "http://127.0.0.1:" + std::to_string(slow.port()) + "/alice";
    start({"--notify-allow", "127.0.0.1:" + std::to_string(slow.port()), "--notify-timeout-seconds",
           "60"});
    ASSERT_EQ(cli_as(alice, {"notify", slow_url}).status, 0);
    finish_run(alice);
    ASSERT_TRUE(wait_until([&] { return slow.open() == 1; }, 10s, 20ms));
    const auto asked = std::chrono::steady_clock::now();
    cluster->signal_coordinator(SIGTERM);
    ASSERT_TRUE(cluster->coordinator_exited(10s)) << "the coordinator waits for the receiver";
    EXPECT_LT(std::chrono::steady_clock::now() - asked, 3s);
    EXPECT_TRUE(wait_until([&] { return slow.open() == 0; }, 2s, 20ms));
    EXPECT_EQ(cluster->query("SELECT count(*) FROM notifications WHERE url = '" + slow_url +
                             "' AND state = 'pending' AND attempts = 0"),
              1);
}

// A user's pending notices are dropped when they clear their URL, and a URL off the list after
// a restart (the operator took its receiver off) gets nothing more: its notices are dropped.
TEST_F(NotifyTest, PendingNoticesAreDroppedWhenTheirUrlIsClearedOrOffTheList) {
    Receiver other;
    other.set_down(true);
    const std::string url = "http://127.0.0.1:" + std::to_string(other.port()) + "/alice";
    start({"--notify-allow", "127.0.0.1:" + std::to_string(other.port())});
    ASSERT_EQ(cli_as(alice, {"notify", url}).status, 0);

    const int64_t first = finish_run(alice);
    ASSERT_TRUE(wait_until([&] { return !other.about("/alice", first).first.empty(); }, 15s, 20ms));
    ASSERT_EQ(cli_as(alice, {"notify", "--clear"}).status, 0);
    EXPECT_EQ(notices(url, "dropped"), 1);
    EXPECT_EQ(notices(url, "pending"), 0);
    const size_t tried = other.about("/alice", first).first.size();
    std::this_thread::sleep_for(2500ms);  // past the retry it would have had
    EXPECT_EQ(other.about("/alice", first).first.size(), tried);
    EXPECT_EQ(receiver.about("/hook", first).second, 1) << "the operator's notice is not alice's";

    // Set again, a run ends; the coordinator restarts with the receiver off its list.
    ASSERT_EQ(cli_as(alice, {"notify", url}).status, 0);
    const int64_t second = finish_run(alice);
    ASSERT_TRUE(
        wait_until([&] { return !other.about("/alice", second).first.empty(); }, 15s, 20ms));
    cluster->stop_coordinator(SIGTERM);
    const std::string port_file = cluster->dir + "/port-off-the-list";
    Process restarted({binary("coordinator/sparring-coordinator"), "serve", "--db", cluster->db,
                       "--listen", "127.0.0.1:0", "--port-file", port_file, "--notify-url", hook},
                      cluster->dir + "/coordinator-off-the-list.log");
    ASSERT_TRUE(wait_until([&] { return notices(url, "dropped") == 2; }, 15s, 100ms))
        << slurp(cluster->dir + "/coordinator-off-the-list.log");
    EXPECT_EQ(notices(url, "pending"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM notifications WHERE url = '" + url +
                             "' AND last_error LIKE '%--notify-allow%'"),
              1);
    EXPECT_EQ(count_in(restarted.log_path(), "event=notification_dropped"), 1u);
}

// The notifier is woken by a run's end, not by a timer: a notification that reaches the outbox
// without the RunFinished event that follows a run's end waits (nothing polls for it), and the
// event sends it at once.
TEST(NotifierWake, ARunsEndIsPostedAtOnceAndNoTimerReadsTheOutbox) {
    using coordinator::Executor;
    using coordinator::SqliteStorage;
    Receiver receiver;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("sparring-notifier-" + std::to_string(::getpid()) + "-" + std::to_string(receiver.port()));
    std::filesystem::create_directories(dir);
    const std::string db = (dir / "coordinator.db").string();
    {
        Executor writer(std::make_unique<SqliteStorage>(db), Executor::Options{.write = true});
        Executor reader(std::make_unique<SqliteStorage>(db), Executor::Options{});
        coordinator::EventBus events;
        const std::string destination = "127.0.0.1:" + std::to_string(receiver.port());
        coordinator::Notifier::Options options;
        options.allowed = {destination};
        coordinator::Notifier notifier(options, writer, reader, events);
        notifier.start();

        // A run and its notification, committed with no event after them.
        coordinator::use_run_kinds(coordinator::all_run_kinds());
        int64_t run_id = 0;
        std::promise<absl::Status> inserted;
        writer.submit(
            [&](coordinator::Storage& storage) {
                coordinator::Version version;
                version.name = "v";
                version.kind = coordinator::Version::Kind::Uci;
                version.uci_command = "engine";
                coordinator::Run run;
                run.test_id = run.base_id = storage.insert_version(version);
                run.spec.kind = coordinator::RunKind::FixedGames;
                run.spec.games = 2;
                coordinator::Notification n;
                n.run_id = storage.insert_run(run);
                n.url = "http://" + destination + "/hook";
                n.destination = destination;
                n.body = R"({"event":"run_ended","run":)" + std::to_string(n.run_id) + "}";
                storage.insert_notification(n);
                run_id = n.run_id;
                return absl::OkStatus();
            },
            [&inserted](absl::Status status) { inserted.set_value(status); });
        const absl::Status status = inserted.get_future().get();
        ASSERT_TRUE(status.ok()) << status;
        std::this_thread::sleep_for(1500ms);  // the notifier that polled read it within 1 s
        EXPECT_TRUE(receiver.posts().empty());

        events.publish(coordinator::RunFinished{run_id});
        // No timer reads the outbox (above), so only the event can have sent it; how fast is
        // the benchmarks' business, not a test's on a loaded machine.
        ASSERT_TRUE(receiver.wait_delivered("/hook", run_id, 30s));
        const std::vector<Receiver::Post> posts = receiver.posts();
        ASSERT_EQ(posts.size(), 1u);
        EXPECT_EQ(posts[0].body["event"], "run_ended");
        EXPECT_EQ(posts[0].key, std::to_string(posts[0].body["id"].get<int64_t>()));
        notifier.stop();
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace sparring::testing
