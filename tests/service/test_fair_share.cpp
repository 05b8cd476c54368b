// Fair share between users (issue 52, item 5), against a real coordinator and real workers on
// 127.0.0.1: three users of 1, 2 and 4 runs of equal priority get about a third of the workers'
// core time each, and users give priorities only
// within the range the operator sets (--user-priority-min/--user-priority-max), over gRPC, the
// CLI, REST and the run page's form, while an admin goes beyond it.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class FairShareTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        if (!port_file.empty()) std::filesystem::remove(port_file);
    }

    // Starts a coordinator with these flags and the dashboard, and adds versions a and b.
    void start(std::vector<std::string> flags) {
        port_file = ::testing::TempDir() + "sparring-fair-" + std::to_string(getpid()) + ".port";
        std::filesystem::remove(port_file);
        flags.insert(flags.end(), {"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
        cluster = std::make_unique<Cluster>(flags);
        const int port = wait_for_port_file(port_file);
        ASSERT_GT(port, 0);
        http = std::make_unique<httplib::Client>("127.0.0.1", port);
        http->set_read_timeout(20s);
        cluster->add_version("a");
        cluster->add_version("b");
    }

    // Submits a fixed-games run over gRPC as the token's user; returns the status.
    grpc::Status submit(const std::string& token, uint64_t games, int priority = 0,
                        v1::RunStatus* run = nullptr) const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        request.mutable_spec()->set_priority(priority);
        v1::RunStatus answer;
        return cluster->users()->SubmitRun(Cluster::context(token).get(), request,
                                           run ? run : &answer);
    }

    grpc::Status modify(const std::string& token, int64_t id, int priority) const {
        v1::ModifyRunRequest request;
        request.set_run_id(id);
        request.set_priority(priority);
        v1::RunStatus run;
        return cluster->users()->ModifyRun(Cluster::context(token).get(), request, &run);
    }

    CommandResult cli_as(const std::string& token, std::vector<std::string> args) const {
        args.insert(args.begin(), binary("cli/sparring"));
        args.insert(args.end(), {"--coordinator", cluster->address, "--token", token});
        return cluster->run(args);
    }

    httplib::Result post(const std::string& path, const std::string& body,
                         const std::string& token) const {
        return http->Post(path.c_str(), httplib::Headers{{"Authorization", "Bearer " + token}},
                          body, "application/json");
    }

    // What a refused call must leave as it was: the runs and their priorities, the history.
    std::string state() const {
        return std::to_string(cluster->query("SELECT count(*) FROM runs")) + "/" +
               std::to_string(cluster->query("SELECT total(priority) FROM runs")) + "/" +
               std::to_string(cluster->query("SELECT count(*) FROM run_changes"));
    }

    std::string port_file;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<httplib::Client> http;
};

// Three users with 1, 2 and 4 runs of one priority, three workers of one core: each user's
// leases hold about a third of the core time of the leases that ended (a fifth to a half each).
// The order per run alone fails it: its ties go to the oldest run, and the user of four runs,
// submitted first, had all of the core time (each worker kept to one of that user's runs).
TEST_F(FairShareTest, ThreeUsersOfUnevenRunCountsShareTheCoresPerUser) {
    start({"--pairs-per-thread", "1"});
    const std::map<std::string, int> runs_of = {{"one", 1}, {"two", 2}, {"four", 4}};
    for (const auto& [user, runs] : runs_of) {
        const std::string token = cluster->create_token("user", user);
        for (int i = 0; i < runs; ++i) ASSERT_TRUE(submit(token, 100'000).ok()) << user << i;
    }
    for (const char* name : {"w1", "w2", "w3"}) cluster->start_worker(name, 1);
    const std::string ended = "FROM batches b JOIN runs r ON r.id = b.run_id WHERE b.ended_ms > 0";
    ASSERT_TRUE(wait_until([&] { return cluster->query("SELECT count(*) " + ended) >= 60; }, 60s))
        << cluster->query("SELECT count(*) " + ended) << " leases ended";
    const double total =
        double(cluster->query("SELECT total(b.cores * (b.ended_ms - b.created_ms)) " + ended));
    ASSERT_GT(total, 0);
    for (const auto& [user, runs] : runs_of) {
        const std::string mine = ended + " AND r.owner = '" + user + "'";
        const double share =
            double(cluster->query("SELECT total(b.cores * (b.ended_ms - b.created_ms)) " + mine)) /
            total;
        std::cout << user << " (" << runs << (runs == 1 ? " run" : " runs")
                  << "): " << cluster->query("SELECT count(*) " + mine) << " leases, "
                  << int(100 * share + 0.5) << "% of the core time\n";
        EXPECT_GT(share, 0.20) << user;
        EXPECT_LT(share, 0.50) << user;
    }
}

// The operator narrows the users' range to 0..10: a user's 11 or -1 is refused over gRPC, the
// CLI, REST and the run page's form, naming the range and the flags, and changes nothing; an
// admin sets 500 and -5.
TEST_F(FairShareTest, UsersGivePrioritiesWithinTheOperatorsRangeAdminsBeyondIt) {
    start({"--user-priority-min", "0", "--user-priority-max", "10"});
    const std::string alice = cluster->create_token("user", "alice");
    const std::string root = cluster->create_token("admin", "root");
    v1::RunStatus run;
    ASSERT_TRUE(submit(alice, 100, 10, &run).ok());
    ASSERT_TRUE(submit(alice, 100, 0).ok());
    const std::string id = std::to_string(run.id());
    const std::string before = state();
    const std::string range = "priority must be in 0..10, not ";
    const std::string flags = "--user-priority-min/--user-priority-max";

    for (const grpc::Status& refused : {submit(alice, 100, 11), modify(alice, run.id(), -1)}) {
        EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_NE(refused.error_message().find(range), std::string::npos)
            << refused.error_message();
        EXPECT_NE(refused.error_message().find(flags), std::string::npos)
            << refused.error_message();
    }
    EXPECT_NE(submit(alice, 100, 11).error_message().find("above 10: an admin's token"),
              std::string::npos);
    EXPECT_EQ(state(), before);

    const CommandResult cli = cli_as(alice, {"modify", id, "--priority", "50"});
    EXPECT_NE(cli.status, 0);
    EXPECT_NE(cli.err.find(range + "50"), std::string::npos) << cli.err;
    const CommandResult cli_submit =
        cli_as(alice, {"submit", "a", "b", "--kind", "fixed", "--games", "100", "--tc", "nodes=300",
                       "--priority", "-3"});
    EXPECT_NE(cli_submit.status, 0);
    EXPECT_NE(cli_submit.err.find(range + "-3"), std::string::npos) << cli_submit.err;
    EXPECT_EQ(state(), before);

    const httplib::Result rest =
        post("/api/v1/runs/" + id + ":modify", R"({"priority": 11})", alice);
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 400) << rest->body;
    EXPECT_NE(rest->body.find(range + "11"), std::string::npos) << rest->body;
    const httplib::Result rest_submit =
        post("/api/v1/runs",
             R"({"spec": {"kind": "RUN_KIND_FIXED_GAMES", "testVersion": "a", "baseVersion": "b",
            "timeControl": {"nodes": "300"}, "games": "100", "priority": 12}})",
             alice);
    ASSERT_TRUE(rest_submit);
    EXPECT_EQ(rest_submit->status, 400) << rest_submit->body;
    EXPECT_NE(rest_submit->body.find(range + "12"), std::string::npos) << rest_submit->body;
    EXPECT_EQ(state(), before);

    // The run page's form, in alice's session.
    const httplib::Result in = http->Post("/login", httplib::Params{{"token", alice}});
    ASSERT_TRUE(in);
    const std::string set = in->get_header_value("Set-Cookie");
    const std::string cookie = set.substr(0, set.find(';'));
    const httplib::Result page =
        http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", cookie}});
    ASSERT_TRUE(page);
    const std::string marker = "name=\"csrf\" value=\"";
    const size_t at = page->body.find(marker);
    ASSERT_NE(at, std::string::npos);
    const httplib::Result form = http->Post(
        ("/runs/" + id + "/modify").c_str(), httplib::Headers{{"Cookie", cookie}},
        httplib::Params{{"csrf", page->body.substr(at + marker.size(), 64)}, {"priority", "20"}});
    ASSERT_TRUE(form);
    EXPECT_NE(form->body.find(range + "20"), std::string::npos) << form->status << form->body;
    EXPECT_EQ(state(), before);

    // An admin goes beyond the users' range, on anybody's run; the user may bring it back in.
    ASSERT_TRUE(modify(root, run.id(), 500).ok());
    ASSERT_TRUE(submit(root, 100, -5).ok());
    ASSERT_TRUE(modify(alice, run.id(), 3).ok());

    // A range that is no range, or out of the bound of every run, does not start.
    for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
             {"--user-priority-min", "5", "--user-priority-max", "4"},
             {"--user-priority-max", "1001"}}) {
        std::vector<std::string> argv = {binary("coordinator/sparring-coordinator"),
                                         "serve",
                                         "--db",
                                         cluster->dir + "/other.db",
                                         "--listen",
                                         "127.0.0.1:0"};
        argv.insert(argv.end(), bad.begin(), bad.end());
        const CommandResult refused = cluster->run(argv);
        EXPECT_NE(refused.status, 0) << bad[0];
        EXPECT_NE(refused.err.find("user-priority"), std::string::npos) << refused.err;
    }
}

}  // namespace
}  // namespace sparring::testing
