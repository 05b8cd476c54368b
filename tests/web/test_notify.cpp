// Notifications of runs' ends (issue 31, item 5): a real coordinator posts them to a receiver
// the test runs on 127.0.0.1 — the operator's --notify-url and a user's own URL, whose host
// must be on --notify-allow. Each run that ends is delivered once per URL with an id, retried
// while the receiver is down, and still delivered (once) after the coordinator is killed and
// restarted in between.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cluster.h"

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

class NotifyTest : public ::testing::Test {
  protected:
    void SetUp() override {
        hook = "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook";
        mine = "http://127.0.0.1:" + std::to_string(receiver.port()) + "/alice";
        cluster = std::make_unique<Cluster>(
            std::vector<std::string>{"--notify-url", hook, "--notify-allow", "127.0.0.1",
                                     "--public-url", "https://sparring.example/"});
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

    Receiver receiver;
    std::string hook, mine, alice;
    std::unique_ptr<Cluster> cluster;
};

TEST_F(NotifyTest, EachRunsEndIsDeliveredOncePerUrlAcrossARestart) {
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

}  // namespace
}  // namespace sparring::testing
