// Bounded answers and bounded work per user (issue 49, item 4, and the paged history and
// priority range of item 5), against a real coordinator on 127.0.0.1: listings answer one page
// of at most 500 runs with their descriptions cut, a user's active runs, submissions and
// modifications per minute are bounded (RESOURCE_EXHAUSTED, 429 over REST, changing nothing;
// an admin's are not), users set priorities up to 100 and admins up to 1000, and a run's status
// carries the latest 100 of its changes, so `show` and `stop` of a run changed 650 times work.
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class UserLimitsTest : public ::testing::Test {
  protected:
    // Starts a coordinator with the dashboard and these flags; alice is a user, root an admin.
    void start(std::vector<std::string> flags) {
        port_file = ::testing::TempDir() + "sparring-limits-" + std::to_string(getpid()) + ".port";
        std::filesystem::remove(port_file);
        flags.insert(flags.end(), {"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
        cluster = std::make_unique<Cluster>(flags);
        port = wait_for_port_file(port_file);
        ASSERT_GT(port, 0);
        http = std::make_unique<httplib::Client>("127.0.0.1", port);
        http->set_read_timeout(20s);
        alice = cluster->create_token("user", "alice");
        root = cluster->create_token("admin", "root");
        cluster->add_version("a");
        cluster->add_version("b");
    }

    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        std::filesystem::remove(port_file);
    }

    // Submits a fixed-games run over gRPC; returns the status and the run in *run.
    grpc::Status submit(const std::string& token, int priority = 0,
                        const std::string& description = "", v1::RunStatus* run = nullptr) const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(100);
        request.mutable_spec()->set_priority(priority);
        request.mutable_spec()->set_description(description);
        v1::RunStatus answer;
        return cluster->users()->SubmitRun(Cluster::context(token).get(), request,
                                           run ? run : &answer);
    }

    // Changes a run's priority and description (when given) over gRPC; returns the status.
    grpc::Status modify(const std::string& token, int64_t id, std::optional<int> priority,
                        const std::string& description = "") const {
        v1::ModifyRunRequest request;
        request.set_run_id(id);
        if (priority) request.set_priority(*priority);
        if (!description.empty()) request.set_description(description);
        v1::RunStatus run;
        return cluster->users()->ModifyRun(Cluster::context(token).get(), request, &run);
    }

    grpc::Status stop(const std::string& token, int64_t id) const {
        v1::StopRunRequest request;
        request.set_run_id(id);
        v1::RunStatus run;
        return cluster->users()->StopRun(Cluster::context(token).get(), request, &run);
    }

    // Runs the CLI with a token of our choice.
    CommandResult cli_as(const std::string& token, std::vector<std::string> args) const {
        args.insert(args.begin(), binary("cli/sparring"));
        args.insert(args.end(), {"--coordinator", cluster->address, "--token", token});
        return cluster->run(args);
    }

    // What a refused call must leave as it was: every run's settings and state, and the history.
    std::string state() const {
        return std::to_string(cluster->query("SELECT count(*) FROM runs")) + "/" +
               std::to_string(cluster->query("SELECT count(*) FROM runs WHERE state = 'active'")) +
               "/" + std::to_string(cluster->query("SELECT total(priority) FROM runs")) + "/" +
               std::to_string(cluster->query("SELECT count(*) FROM run_changes"));
    }

    std::string port_file;
    int port = 0;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<httplib::Client> http;
    std::string alice, root;
};

TEST_F(UserLimitsTest, ListingsAnswerAtMost500RunsAPageWithTheirDescriptionsCut) {
    start({});
    const std::string long_description(4000, 'd');
    for (int i = 0; i < 520; ++i)
        ASSERT_TRUE(submit(root, 0, i == 0 ? long_description : "").ok()) << i;

    v1::ListRunsRequest request;
    request.set_limit(100000);
    v1::ListRunsResponse page;
    ASSERT_TRUE(cluster->users()->ListRuns(Cluster::context(alice).get(), request, &page).ok());
    EXPECT_EQ(page.runs_size(), 500);
    EXPECT_EQ(page.total(), 520u);
    request.set_offset(500);
    ASSERT_TRUE(cluster->users()->ListRuns(Cluster::context(alice).get(), request, &page).ok());
    ASSERT_EQ(page.runs_size(), 20);
    // The oldest run, the last of the second page, carries its description cut to 200 bytes.
    const std::string& listed = page.runs(19).spec().description();
    EXPECT_LE(listed.size(), 200u);
    EXPECT_EQ(listed.substr(0, 100), long_description.substr(0, 100));
    EXPECT_EQ(listed.substr(listed.size() - 3), "\u2026");
    v1::GetRunRequest get;
    get.set_run_id(page.runs(19).id());
    v1::RunStatus whole;
    ASSERT_TRUE(cluster->users()->GetRun(Cluster::context(alice).get(), get, &whole).ok());
    EXPECT_EQ(whole.spec().description(), long_description);

    // REST and the CLI are the same listing.
    const httplib::Result rest = http->Get("/api/v1/runs?limit=100000");
    ASSERT_TRUE(rest);
    ASSERT_EQ(rest->status, 200) << rest->body;
    const nlohmann::json json = nlohmann::json::parse(rest->body);
    EXPECT_EQ(json["runs"].size(), 500u);
    EXPECT_EQ(json["total"], "520");
    const CommandResult cli = cli_as(alice, {"runs", "--limit", "100000"});
    ASSERT_EQ(cli.status, 0) << cli.err;
    EXPECT_NE(cli.out.find("runs 1-500 of 520; next page: sparring runs --offset 500"),
              std::string::npos)
        << cli.out.substr(cli.out.size() - 300);
    const CommandResult last = cli_as(alice, {"runs", "--offset", "500"});
    ASSERT_EQ(last.status, 0) << last.err;
    EXPECT_EQ(last.out.find("next page"), std::string::npos);
}

TEST_F(UserLimitsTest, AUsersActiveRunsSubmissionsAndModificationsAreBoundedAndAnAdminsAreNot) {
    start({"--max-active-runs-per-user", "3", "--max-submits-per-minute", "5",
           "--max-modifications-per-minute", "4"});
    std::vector<int64_t> runs;
    for (int i = 0; i < 3; ++i) {
        v1::RunStatus run;
        ASSERT_TRUE(submit(alice, 0, "", &run).ok());
        runs.push_back(run.id());
    }
    // A fourth active run: refused, changing nothing.
    std::string before = state();
    grpc::Status refused = submit(alice);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(refused.error_message().find("user 'alice' has 3 active runs"), std::string::npos)
        << refused.error_message();
    EXPECT_NE(refused.error_message().find("--max-active-runs-per-user"), std::string::npos);
    EXPECT_EQ(state(), before);
    // Over REST the same refusal is a 429.
    httplib::Headers headers = {{"Authorization", "Bearer " + alice}};
    v1::SubmitRunRequest request;
    *request.mutable_spec() = fixed_games_spec(100);
    std::string body;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(request, &body).ok());
    const httplib::Result rest = http->Post("/api/v1/runs", headers, body, "application/json");
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 429) << rest->body;
    EXPECT_EQ(state(), before);

    // A stopped run makes room; stops are not modifications.
    ASSERT_TRUE(stop(alice, runs[0]).ok());
    ASSERT_TRUE(submit(alice).ok());  // her fourth submission this minute
    ASSERT_TRUE(stop(alice, runs[1]).ok());
    ASSERT_TRUE(submit(alice).ok());  // the fifth
    ASSERT_TRUE(stop(alice, runs[2]).ok());
    before = state();
    refused = submit(alice);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(refused.error_message().find("submitted 5 runs in the last minute"),
              std::string::npos)
        << refused.error_message();
    EXPECT_NE(refused.error_message().find("--max-submits-per-minute"), std::string::npos);
    EXPECT_EQ(state(), before);

    // Four modifications a minute; the fifth is refused and changes nothing.
    v1::ListRunsRequest active;
    active.add_states(v1::RUN_STATE_ACTIVE);
    v1::ListRunsResponse listed;
    ASSERT_TRUE(cluster->users()->ListRuns(Cluster::context(alice).get(), active, &listed).ok());
    ASSERT_FALSE(listed.runs().empty());
    const int64_t mine = listed.runs(0).id();
    for (int p = 1; p <= 4; ++p) ASSERT_TRUE(modify(alice, mine, p).ok()) << p;
    before = state();
    refused = modify(alice, mine, 5);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(refused.error_message().find("--max-modifications-per-minute"), std::string::npos)
        << refused.error_message();
    EXPECT_EQ(state(), before);

    // The admin is bounded by none of them.
    int64_t last = 0;
    for (int i = 0; i < 8; ++i) {
        v1::RunStatus run;
        ASSERT_TRUE(submit(root, 0, "", &run).ok()) << i;
        last = run.id();
    }
    for (int p = 1; p <= 8; ++p) ASSERT_TRUE(modify(root, last, p).ok()) << p;
    EXPECT_TRUE(modify(root, mine, 50).ok());
}

TEST_F(UserLimitsTest, UsersSetPrioritiesUpTo100AndAdminsUpTo1000) {
    start({});
    v1::RunStatus run;
    ASSERT_TRUE(submit(alice, 100, "", &run).ok());
    ASSERT_TRUE(submit(alice, -1000).ok());
    std::string before = state();
    grpc::Status refused = submit(alice, 101);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(refused.error_message().find("priority must be in -1000..100, not 101"),
              std::string::npos)
        << refused.error_message();
    EXPECT_EQ(submit(alice, -1001).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    refused = modify(alice, run.id(), 1000);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(refused.error_message().find("an admin's token"), std::string::npos)
        << refused.error_message();
    EXPECT_EQ(state(), before);
    const CommandResult cli =
        cli_as(alice, {"modify", std::to_string(run.id()), "--priority", "500"});
    EXPECT_NE(cli.status, 0);
    EXPECT_NE(cli.err.find("priority must be in -1000..100"), std::string::npos) << cli.err;
    EXPECT_EQ(state(), before);

    // The admin sets any priority up to 1000, on anybody's run; a user may lower it again.
    ASSERT_TRUE(modify(root, run.id(), 1000).ok());
    ASSERT_TRUE(submit(root, 1000).ok());
    refused = submit(root, 1001);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(refused.error_message().find("priority must be in -1000..1000, not 1001"),
              std::string::npos)
        << refused.error_message();
    ASSERT_TRUE(modify(alice, run.id(), 10).ok());
}

TEST_F(UserLimitsTest, ShowAndStopOfARunChanged650TimesAnswerItsLatestChanges) {
    start({});
    v1::RunStatus run;
    ASSERT_TRUE(submit(root, 0, "", &run).ok());
    // 650 changes of a 4,000-byte description: 5 MB of history, past the CLI's 4 MiB.
    for (int i = 0; i < 650; ++i)
        ASSERT_TRUE(
            modify(root, run.id(), std::nullopt, std::string(4000, char('a' + i % 26))).ok())
            << i;
    ASSERT_EQ(cluster->query("SELECT count(*) FROM run_changes"), 650);

    v1::GetRunRequest get;
    get.set_run_id(run.id());
    v1::RunStatus status;
    ASSERT_TRUE(cluster->users()->GetRun(Cluster::context(alice).get(), get, &status).ok());
    EXPECT_EQ(status.change_count(), 650u);
    ASSERT_EQ(status.changes_size(), 100);
    EXPECT_EQ(status.changes(99).new_value(), std::string(4000, char('a' + 649 % 26)));
    get.set_changes_offset(600);  // the oldest 50
    ASSERT_TRUE(cluster->users()->GetRun(Cluster::context(alice).get(), get, &status).ok());
    ASSERT_EQ(status.changes_size(), 50);
    EXPECT_EQ(status.changes(0).old_value(), "");
    EXPECT_EQ(status.changes(0).new_value(), std::string(4000, 'a'));

    const std::string id = std::to_string(run.id());
    const CommandResult show = cli_as(alice, {"show", id});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("changes: 550 earlier of 650 (sparring show " + id +
                            " --changes-offset 100)"),
              std::string::npos);
    const CommandResult page = cli_as(alice, {"show", id, "--changes-offset", "100"});
    ASSERT_EQ(page.status, 0) << page.err;
    EXPECT_EQ(count_in_text(page.out, "changed: description"), 100u);
    EXPECT_NE(page.out.find("--changes-offset 200"), std::string::npos);

    // The stop commits and says so.
    const CommandResult stopped = cli_as(root, {"stop", id});
    EXPECT_EQ(stopped.status, 0) << stopped.err;
    EXPECT_NE(stopped.out.find("run " + id + " stopped"), std::string::npos) << stopped.out;
    EXPECT_EQ(cluster->query("SELECT state = 'stopped' FROM runs WHERE id = " + id), 1);
}

}  // namespace
}  // namespace sparring::testing
