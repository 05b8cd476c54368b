// Runs with owners (issue 31): a real coordinator with its dashboard on 127.0.0.1, three named
// tokens (two users and an admin) and a worker token. Each mutation of a run — stop, modify,
// purge — over gRPC, REST, the CLI and the run page's form, with each role: the owner and an
// admin may, another user gets PERMISSION_DENIED (403) and changes nothing. Then the filters
// of the runs list, and the login that keeps tokens out of URLs.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "cluster.h"
#include "coordinator/web/json.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class OwnersTest : public ::testing::Test {
  protected:
    void SetUp() override {
        port_file = ::testing::TempDir() + "sparring-owners-" + std::to_string(getpid()) + ".port";
        std::filesystem::remove(port_file);
        cluster = std::make_unique<Cluster>(std::vector<std::string>{
            "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
        port = wait_for_port_file(port_file);
        ASSERT_GT(port, 0);
        http = std::make_unique<httplib::Client>("127.0.0.1", port);
        http->set_read_timeout(10s);
        alice = cluster->create_token("user", "alice");
        bob = cluster->create_token("user", "bob");
        root = cluster->create_token("admin", "root");
        cluster->add_version("a");
        cluster->add_version("b");
    }

    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        std::filesystem::remove(port_file);
    }

    // Submits a fixed-games run of a against b over gRPC with a token; returns it.
    v1::RunStatus submit(const std::string& token, uint64_t games = 100,
                         const std::string& description = "") const {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(games);
        request.mutable_spec()->set_description(description);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run;
    }

    v1::RunStatus get(int64_t id) const {
        v1::GetRunRequest request;
        request.set_run_id(id);
        v1::RunStatus run;
        EXPECT_TRUE(cluster->users()->GetRun(Cluster::context(alice).get(), request, &run).ok());
        return run;
    }

    // Runs the CLI with a token of our choice.
    CommandResult cli_as(const std::string& token, std::vector<std::string> args) const {
        args.insert(args.begin(), binary("cli/sparring"));
        args.insert(args.end(), {"--coordinator", cluster->address, "--token", token});
        return cluster->run(args);
    }

    // Posts to the REST API with a bearer token.
    httplib::Result post(const std::string& path, const std::string& body,
                         const std::string& token) {
        httplib::Headers headers;
        if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
        return http->Post(path.c_str(), headers, body, "application/json");
    }

    // What a refused mutation must leave as it was: the run's settings, state and history.
    std::string state_of(int64_t id) const {
        const std::string where = " WHERE id = " + std::to_string(id);
        return std::to_string(cluster->query("SELECT priority FROM runs" + where)) + "/" +
               std::to_string(cluster->query("SELECT throughput FROM runs" + where)) + "/" +
               std::to_string(cluster->query("SELECT games FROM runs" + where)) + "/" +
               std::to_string(cluster->query("SELECT state = 'active' FROM runs" + where)) + "/" +
               std::to_string(cluster->query("SELECT count(*) FROM run_changes")) + "/" +
               std::to_string(cluster->query("SELECT count(*) FROM purges"));
    }

    std::string port_file;
    int port = 0;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<httplib::Client> http;
    std::string alice, bob, root;
};

TEST_F(OwnersTest, OnlyTheOwnerOrAnAdminStopsOrChangesARunOverGrpcRestAndTheCli) {
    const v1::RunStatus run = submit(alice, 100, "alice's patch");
    EXPECT_EQ(run.spec().owner(), "alice");
    const std::string id = std::to_string(run.id());
    // A worker holds a lease of the run, so that a purge has somebody to name.
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    ASSERT_NE(worker, 0);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const std::string before = state_of(run.id());

    // Bob, another user, is refused every mutation, over every transport, and nothing changes.
    auto users = cluster->users();
    v1::StopRunRequest stop;
    stop.set_run_id(run.id());
    v1::ModifyRunRequest modify;
    modify.set_run_id(run.id());
    modify.set_priority(9);
    v1::PurgeWorkerRequest purge;
    purge.set_run_id(run.id());
    purge.set_worker_id(worker);
    v1::RunStatus answer;
    for (const grpc::Status& refused :
         {users->StopRun(Cluster::context(bob).get(), stop, &answer),
          users->ModifyRun(Cluster::context(bob).get(), modify, &answer),
          users->PurgeWorker(Cluster::context(bob).get(), purge, &answer),
          users->StopRun(Cluster::context(cluster->worker_token).get(), stop, &answer)}) {
        EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << refused.error_message();
        EXPECT_EQ(state_of(run.id()), before);
    }
    const grpc::Status denied = users->StopRun(Cluster::context(bob).get(), stop, &answer);
    EXPECT_NE(denied.error_message().find("belongs to 'alice'"), std::string::npos)
        << denied.error_message();
    for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
             {"/api/v1/runs/" + id + ":stop", ""},
             {"/api/v1/runs/" + id + ":modify", R"({"priority": 9})"},
             {"/api/v1/runs/" + id + ":purge",
              "{\"worker_id\": " + std::to_string(worker) + "}"}}) {
        const httplib::Result result = post(path, body, bob);
        ASSERT_TRUE(result) << path;
        EXPECT_EQ(result->status, 403) << path << ": " << result->body;
        EXPECT_NE(result->body.find("PERMISSION_DENIED"), std::string::npos) << result->body;
        EXPECT_EQ(state_of(run.id()), before) << path;
    }
    const CommandResult bob_stops = cli_as(bob, {"stop", id});
    EXPECT_NE(bob_stops.status, 0);
    EXPECT_NE(bob_stops.err.find("belongs to 'alice'"), std::string::npos) << bob_stops.err;
    const CommandResult bob_modifies = cli_as(bob, {"modify", id, "--priority", "3"});
    EXPECT_NE(bob_modifies.status, 0);
    EXPECT_NE(bob_modifies.err.find("permission denied"), std::string::npos) << bob_modifies.err;
    EXPECT_EQ(state_of(run.id()), before);

    // Alice changes her run over each transport; the admin changes it too; each change is in
    // the run's history with who made it.
    const CommandResult alice_modifies =
        cli_as(alice, {"modify", id, "--priority", "5", "--description", "alice's patch, v2"});
    EXPECT_EQ(alice_modifies.status, 0) << alice_modifies.err;
    EXPECT_NE(alice_modifies.out.find("priority 5"), std::string::npos) << alice_modifies.out;
    const httplib::Result rest = post("/api/v1/runs/" + id + ":modify", R"({"games": 60})", alice);
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 200) << rest->body;
    v1::ModifyRunRequest throughput;
    throughput.set_run_id(run.id());
    throughput.set_throughput(50);
    ASSERT_TRUE(users->ModifyRun(Cluster::context(root).get(), throughput, &answer).ok());
    v1::RunStatus changed = get(run.id());
    EXPECT_EQ(changed.spec().priority(), 5);
    EXPECT_EQ(changed.spec().games(), 60u);
    EXPECT_EQ(changed.spec().throughput(), 50u);
    EXPECT_EQ(changed.spec().description(), "alice's patch, v2");
    ASSERT_EQ(changed.changes_size(), 4);
    EXPECT_EQ(changed.changes(0).user(), "alice");
    EXPECT_EQ(changed.changes(0).field(), "priority");
    EXPECT_EQ(changed.changes(0).old_value(), "0");
    EXPECT_EQ(changed.changes(0).new_value(), "5");
    EXPECT_EQ(changed.changes(1).field(), "description");
    EXPECT_EQ(changed.changes(2).field(), "games");
    EXPECT_EQ(changed.changes(2).old_value(), "100");
    EXPECT_EQ(changed.changes(3).user(), "root");
    EXPECT_GT(changed.changes(3).changed_unix_ms(), 0);
    const CommandResult show = cli_as(bob, {"show", id});
    EXPECT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("changed: throughput '100' -> '50' by 'root'"), std::string::npos)
        << show.out;
    EXPECT_NE(show.out.find("by alice"), std::string::npos) << show.out;

    // Bob's own run: the admin stops it, and the history says who did.
    const v1::RunStatus bobs = submit(bob);
    const CommandResult admin_stops = cli_as(root, {"stop", std::to_string(bobs.id())});
    EXPECT_EQ(admin_stops.status, 0) << admin_stops.err;
    const v1::RunStatus stopped = get(bobs.id());
    EXPECT_EQ(stopped.state(), v1::RUN_STATE_STOPPED);
    ASSERT_EQ(stopped.changes_size(), 1);
    EXPECT_EQ(stopped.changes(0).field(), "state");
    EXPECT_EQ(stopped.changes(0).user(), "root");
    // And alice stops her own run over REST.
    const httplib::Result alice_stops = post("/api/v1/runs/" + id + ":stop", "", alice);
    ASSERT_TRUE(alice_stops);
    EXPECT_EQ(alice_stops->status, 200) << alice_stops->body;
    EXPECT_EQ(get(run.id()).state(), v1::RUN_STATE_STOPPED);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs WHERE owner = 'alice'"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions WHERE owner = 'user'"), 2);
}

// Each mutation of a run, over gRPC and over REST, with each role: a worker token and another
// user are refused (PERMISSION_DENIED, 403) and change nothing; the owner and an admin may.
TEST_F(OwnersTest, EachMutationOverGrpcAndRestWithEachRole) {
    enum class Mutation { Modify, Purge, Stop };
    // Returns the gRPC code of a mutation of a run over a transport (REST's HTTP status mapped
    // back: 200 OK, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, anything else UNKNOWN).
    const auto mutate = [&](bool rest, Mutation m, const std::string& token, int64_t run,
                            int64_t worker, int priority) {
        const std::string id = std::to_string(run);
        if (rest) {
            const std::string path = "/api/v1/runs/" + id +
                                     (m == Mutation::Modify  ? ":modify"
                                      : m == Mutation::Purge ? ":purge"
                                                             : ":stop");
            const std::string body =
                m == Mutation::Modify  ? "{\"priority\": " + std::to_string(priority) + "}"
                : m == Mutation::Purge ? "{\"worker_id\": " + std::to_string(worker) + "}"
                                       : "";
            const httplib::Result result = post(path, body, token);
            if (!result) return grpc::StatusCode::UNAVAILABLE;
            return result->status == 200   ? grpc::StatusCode::OK
                   : result->status == 401 ? grpc::StatusCode::UNAUTHENTICATED
                   : result->status == 403 ? grpc::StatusCode::PERMISSION_DENIED
                                           : grpc::StatusCode::UNKNOWN;
        }
        auto users = cluster->users();
        v1::RunStatus answer;
        if (m == Mutation::Modify) {
            v1::ModifyRunRequest request;
            request.set_run_id(run);
            request.set_priority(priority);
            return users->ModifyRun(Cluster::context(token).get(), request, &answer).error_code();
        }
        if (m == Mutation::Purge) {
            v1::PurgeWorkerRequest request;
            request.set_run_id(run);
            request.set_worker_id(worker);
            return users->PurgeWorker(Cluster::context(token).get(), request, &answer).error_code();
        }
        v1::StopRunRequest request;
        request.set_run_id(run);
        return users->StopRun(Cluster::context(token).get(), request, &answer).error_code();
    };
    // Two workers report a pair each of a run: two purges to make.
    const auto played = [&](int64_t run) {
        std::vector<int64_t> ids;
        auto stub = cluster->workers();
        for (int i = 0; i < 2; ++i) {
            const int64_t worker = register_worker(*stub, cluster->worker_token);
            v1::RequestWorkResponse work;
            EXPECT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
            EXPECT_EQ(work.lease().run_id(), run);
            v1::ReportResultsResponse ack;
            EXPECT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                            report(worker, work.lease().lease_id(), 1, {0}), &ack)
                            .ok());
            ids.push_back(worker);
        }
        return ids;
    };
    for (const bool rest : {false, true}) {
        SCOPED_TRACE(rest ? "REST" : "gRPC");
        const v1::RunStatus run = submit(alice, 100);
        const std::vector<int64_t> workers = played(run.id());
        const v1::RunStatus second = submit(alice, 100);
        const std::string before = state_of(run.id()) + " " + state_of(second.id());
        for (const Mutation m : {Mutation::Modify, Mutation::Purge, Mutation::Stop})
            for (const std::string& token : {cluster->worker_token, bob}) {
                EXPECT_EQ(mutate(rest, m, token, run.id(), workers[0], 7),
                          grpc::StatusCode::PERMISSION_DENIED)
                    << int(m) << (token == bob ? " bob" : " worker");
                EXPECT_EQ(state_of(run.id()) + " " + state_of(second.id()), before);
            }
        EXPECT_EQ(mutate(rest, Mutation::Modify, alice, run.id(), 0, 3), grpc::StatusCode::OK);
        EXPECT_EQ(mutate(rest, Mutation::Modify, root, run.id(), 0, 4), grpc::StatusCode::OK);
        EXPECT_EQ(get(run.id()).spec().priority(), 4);
        EXPECT_EQ(mutate(rest, Mutation::Purge, alice, run.id(), workers[0], 0),
                  grpc::StatusCode::OK);
        EXPECT_EQ(mutate(rest, Mutation::Purge, root, run.id(), workers[1], 0),
                  grpc::StatusCode::OK);
        EXPECT_EQ(get(run.id()).purges_size(), 2);
        EXPECT_EQ(mutate(rest, Mutation::Stop, alice, run.id(), 0, 0), grpc::StatusCode::OK);
        EXPECT_EQ(mutate(rest, Mutation::Stop, root, second.id(), 0, 0), grpc::StatusCode::OK);
        EXPECT_EQ(get(second.id()).state(), v1::RUN_STATE_STOPPED);
        // The stops are in the runs' histories, with who stopped them.
        EXPECT_EQ(get(second.id()).changes(0).user(), "root");
    }
}

TEST_F(OwnersTest, WhatWouldInvalidateResultsIsRefusedAndFewerGamesEndARun) {
    const v1::RunStatus run = submit(alice, 20);
    const std::string id = std::to_string(run.id());
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const uint32_t leased = uint32_t(work.lease().openings_size());
    ASSERT_GT(leased, 1u);
    const std::string before = state_of(run.id());

    struct Case {
        std::vector<std::string> flags;
        std::string error;
    };
    const std::vector<Case> refused = {
        {{"--tc", "60+0.6"}, "the time control of run " + id + " cannot change"},
        {{"--test", "b"}, "the versions of run " + id + " cannot change"},
        {{"--book", "other.epd"}, "the book of run " + id + " cannot change"},
        {{"--games", "2"}, "games played or out on leases"},
        {{"--games", "31"}, "positive even number"},
        {{"--priority", "5000"}, "--priority"},
        {{}, "nothing to change"},
    };
    for (const Case& c : refused) {
        std::vector<std::string> args = {"modify", id};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        const CommandResult result = cli_as(alice, args);
        EXPECT_NE(result.status, 0) << result.out;
        EXPECT_NE(result.err.find(c.error), std::string::npos) << result.err;
        EXPECT_EQ(state_of(run.id()), before);
    }
    const CommandResult tc = cli_as(alice, {"modify", id, "--tc", "60+0.6"});
    EXPECT_NE(tc.err.find("sparring submit --like " + id), std::string::npos) << tc.err;

    // The lease's pairs are reported; games lowered to those played end the run at once.
    std::vector<uint32_t> indices;
    for (uint32_t i = 0; i < leased; ++i) indices.push_back(i);
    v1::ReportResultsResponse ack;
    ASSERT_TRUE(workers
                    ->ReportResults(Cluster::context(cluster->worker_token).get(),
                                    report(worker, work.lease().lease_id(), 1, indices), &ack)
                    .ok());
    const CommandResult lowered =
        cli_as(alice, {"modify", id, "--games", std::to_string(2 * leased)});
    EXPECT_EQ(lowered.status, 0) << lowered.err;
    const v1::RunStatus ended = get(run.id());
    EXPECT_EQ(ended.state(), v1::RUN_STATE_FINISHED);
    EXPECT_EQ(ended.result(), "completed");
    EXPECT_EQ(ended.games(), 2 * leased);
    // An ended run's description may still change; its priority may not.
    const CommandResult late = cli_as(alice, {"modify", id, "--priority", "1"});
    EXPECT_NE(late.status, 0);
    EXPECT_NE(late.err.find("only its description can change"), std::string::npos) << late.err;
    EXPECT_EQ(cli_as(alice, {"modify", id, "--description", "done"}).status, 0);
    EXPECT_EQ(get(run.id()).spec().description(), "done");
}

TEST_F(OwnersTest, RunsAreFoundByOwnerTimeControlResultAndDate) {
    const v1::RunStatus alices = submit(alice, 100, "by alice");
    v1::SubmitRunRequest other;
    *other.mutable_spec() = fixed_games_spec(100);
    other.mutable_spec()->mutable_time_control()->set_nodes(500);
    v1::RunStatus bobs;
    ASSERT_TRUE(cluster->users()->SubmitRun(Cluster::context(bob).get(), other, &bobs).ok());
    ASSERT_EQ(cli_as(bob, {"stop", std::to_string(bobs.id())}).status, 0);

    const auto ids = [&](std::vector<std::string> flags) {
        flags.insert(flags.begin(), {"runs", "--json"});
        const CommandResult listed = cli_as(bob, flags);
        EXPECT_EQ(listed.status, 0) << listed.err;
        v1::ListRunsResponse response;
        EXPECT_TRUE(coordinator::web::from_json(listed.out, &response).ok()) << listed.out;
        std::vector<int64_t> out;
        for (const v1::RunStatus& r : response.runs()) out.push_back(r.id());
        return out;
    };
    const std::vector<int64_t> only_alice = {alices.id()}, only_bob = {bobs.id()};
    EXPECT_EQ(ids({"--owner", "alice"}), only_alice);
    EXPECT_EQ(ids({"--owner", "bob"}), only_bob);
    EXPECT_EQ(ids({"--owner", "carol"}), std::vector<int64_t>{});
    EXPECT_EQ(ids({"--tc", "nodes=500"}), only_bob);
    EXPECT_EQ(ids({"--result", "stopped"}), only_bob);
    EXPECT_EQ(ids({"--since", "2000-01-01", "--until", "2000-12-31"}), std::vector<int64_t>{});
    EXPECT_EQ(ids({"--since", "2000-01-01", "--owner", "alice"}), only_alice);
    const CommandResult table = cli_as(bob, {"runs"});
    EXPECT_NE(table.out.find("OWNER"), std::string::npos);
    EXPECT_NE(table.out.find("alice"), std::string::npos);
    const CommandResult bad_tc = cli_as(bob, {"runs", "--tc", "fast"});
    EXPECT_NE(bad_tc.status, 0);
    EXPECT_NE(bad_tc.err.find("time control"), std::string::npos) << bad_tc.err;
    const CommandResult bad_date = cli_as(bob, {"runs", "--since", "yesterday"});
    EXPECT_NE(bad_date.status, 0);
    EXPECT_NE(bad_date.err.find("YYYY-MM-DD"), std::string::npos) << bad_date.err;

    // REST and the runs page take the same filters, kept in the page's links.
    const httplib::Result rest = http->Get("/api/v1/runs?owner=alice");
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 200);
    EXPECT_NE(rest->body.find("\"owner\":\"alice\""), std::string::npos);
    EXPECT_EQ(rest->body.find("\"owner\":\"bob\""), std::string::npos) << rest->body;
    const httplib::Result page =
        http->Get("/?owner=bob&tc=nodes%3D500&result=stopped&since=2020-01-01");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    EXPECT_NE(page->body.find("href=\"/runs/" + std::to_string(bobs.id()) + "\""),
              std::string::npos);
    EXPECT_EQ(page->body.find("href=\"/runs/" + std::to_string(alices.id()) + "\""),
              std::string::npos);
    EXPECT_NE(page->body.find("name=\"owner\" value=\"bob\""), std::string::npos);
    EXPECT_NE(page->body.find("value=\"2020-01-01\""), std::string::npos);
}

// Issue 50: the coordinator submits a run like another, so gRPC, REST and the run page's
// "Run again" button share it: the origin's spec and openings with the overrides given, the
// caller its owner, the origin recorded.
TEST_F(OwnersTest, ARunIsSubmittedLikeAnotherOverGrpcRestAndTheRunPagesButton) {
    const v1::RunStatus first = submit(alice, 100, "the first try");
    const std::string id = std::to_string(first.id());
    const auto expect_like_first = [&](const v1::RunStatus& copy) {
        EXPECT_EQ(copy.spec().origin_run_id(), first.id());
        EXPECT_EQ(copy.spec().kind(), v1::RUN_KIND_FIXED_GAMES);
        EXPECT_EQ(copy.spec().test_version(), "a");
        EXPECT_EQ(copy.spec().base_version(), "b");
        EXPECT_EQ(copy.spec().time_control().nodes(), 300u);
        EXPECT_EQ(copy.book_size(), first.book_size());
    };

    // Over gRPC, with more games.
    v1::SubmitRunRequest request;
    request.set_like(first.id());
    request.add_overrides("games");
    request.mutable_spec()->set_games(200);
    v1::RunStatus by_grpc;
    const grpc::Status status =
        cluster->users()->SubmitRun(Cluster::context(alice).get(), request, &by_grpc);
    ASSERT_TRUE(status.ok()) << status.error_message();
    expect_like_first(get(by_grpc.id()));
    EXPECT_EQ(by_grpc.spec().games(), 200u);
    EXPECT_EQ(by_grpc.spec().description(), "the first try");
    EXPECT_EQ(by_grpc.spec().owner(), "alice");

    // Over REST, by another user, with another description: the run is bob's.
    const httplib::Result by_rest =
        post("/api/v1/runs",
             R"({"like": ")" + id +
                 R"(", "overrides": ["description"], "spec": {"description": "bob's try"}})",
             bob);
    ASSERT_TRUE(by_rest);
    ASSERT_EQ(by_rest->status, 200) << by_rest->body;
    v1::RunStatus rest_run;
    ASSERT_TRUE(coordinator::web::from_json(by_rest->body, &rest_run).ok()) << by_rest->body;
    const v1::RunStatus bobs = get(rest_run.id());
    expect_like_first(bobs);
    EXPECT_EQ(bobs.spec().games(), 100u);
    EXPECT_EQ(bobs.spec().description(), "bob's try");
    EXPECT_EQ(bobs.spec().owner(), "bob");

    // Refused: a field no copy may change, overrides without like, an SPRT bound for a
    // fixed-games copy, and a run that does not exist.
    const auto refused = [&](v1::SubmitRunRequest bad) {
        v1::RunStatus ignored;
        return cluster->users()->SubmitRun(Cluster::context(alice).get(), bad, &ignored);
    };
    v1::SubmitRunRequest owner = request;
    owner.add_overrides("owner");
    EXPECT_EQ(refused(owner).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    v1::SubmitRunRequest unlinked = request;
    unlinked.clear_like();
    EXPECT_EQ(refused(unlinked).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    v1::SubmitRunRequest sprt = request;
    sprt.add_overrides("sprt.elo1");
    EXPECT_EQ(refused(sprt).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    v1::SubmitRunRequest missing = request;
    missing.set_like(99);
    const grpc::Status gone = refused(missing);
    EXPECT_EQ(gone.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_NE(gone.error_message().find("no run 99 to submit like"), std::string::npos);

    // The run page's button, for its owner: a session, the CSRF secret, and a new run.
    const auto login = [&](const std::string& token) {
        const httplib::Result in = http->Post("/login", httplib::Params{{"token", token}});
        EXPECT_TRUE(in);
        const std::string set = in->get_header_value("Set-Cookie");
        return set.substr(0, set.find(';'));
    };
    const std::string action = "action=\"/runs/" + id + "/again\"";
    const std::string bob_cookie = login(bob);
    const httplib::Result bob_page =
        http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", bob_cookie}});
    ASSERT_TRUE(bob_page);
    EXPECT_EQ(bob_page->body.find(action), std::string::npos) << "bob sees alice's button";
    const std::string cookie = login(alice);
    const httplib::Result page =
        http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", cookie}});
    ASSERT_TRUE(page);
    ASSERT_NE(page->body.find(action), std::string::npos) << page->body;
    const std::string marker = "name=\"csrf\" value=\"";
    const size_t at = page->body.find(marker);
    ASSERT_NE(at, std::string::npos);
    const std::string csrf = page->body.substr(at + marker.size(), 64);
    const httplib::Result forged =
        http->Post(("/runs/" + id + "/again").c_str(), httplib::Headers{{"Cookie", cookie}},
                   httplib::Params{{"csrf", std::string(64, '0')}});
    ASSERT_TRUE(forged);
    EXPECT_EQ(forged->status, 403);
    const int64_t runs_before = cluster->query("SELECT count(*) FROM runs");
    const httplib::Result again =
        http->Post(("/runs/" + id + "/again").c_str(), httplib::Headers{{"Cookie", cookie}},
                   httplib::Params{{"csrf", csrf}});
    ASSERT_TRUE(again);
    ASSERT_EQ(again->status, 303) << again->body;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), runs_before + 1);
    const std::string location = again->get_header_value("Location");
    ASSERT_EQ(location.rfind("/runs/", 0), 0u) << location;
    const v1::RunStatus made = get(std::stoll(location.substr(6)));
    expect_like_first(made);
    EXPECT_EQ(made.spec().games(), 100u);
    EXPECT_EQ(made.spec().owner(), "alice");
}

TEST_F(OwnersTest, TheRunPagesFormNeedsASessionAndItsCsrfSecretAndTheOwner) {
    const v1::RunStatus run = submit(alice, 100, "before");
    const std::string id = std::to_string(run.id());
    const std::string before = state_of(run.id());
    // A token in a URL is refused and starts no session.
    const httplib::Result url_token = http->Get(("/login?token=" + alice).c_str());
    ASSERT_TRUE(url_token);
    EXPECT_EQ(url_token->status, 400);
    EXPECT_FALSE(url_token->has_header("Set-Cookie"));
    // A bad token starts none either.
    httplib::Params bad = {{"token", "spu_" + std::string(64, '0')}};
    const httplib::Result refused = http->Post("/login", bad);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401);
    EXPECT_FALSE(refused->has_header("Set-Cookie"));

    // Logs in with a token in the body; returns the session cookie and the run page's CSRF
    // secret (empty when the page has no form).
    const auto login = [&](const std::string& token) {
        const httplib::Result in = http->Post("/login", httplib::Params{{"token", token}});
        EXPECT_TRUE(in);
        EXPECT_EQ(in->status, 303);
        const std::string set = in->get_header_value("Set-Cookie");
        EXPECT_NE(set.find("HttpOnly"), std::string::npos) << set;
        EXPECT_NE(set.find("SameSite=Strict"), std::string::npos) << set;
        EXPECT_EQ(set.find(token.substr(4)), std::string::npos) << "the token is in the cookie";
        const std::string cookie = set.substr(0, set.find(';'));
        const httplib::Result page =
            http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", cookie}});
        EXPECT_TRUE(page);
        const std::string marker = "name=\"csrf\" value=\"";
        const size_t at = page->body.find(marker);
        std::string csrf = at == std::string::npos ? "" : page->body.substr(at + marker.size(), 64);
        return std::make_pair(cookie, csrf);
    };
    const auto send = [&](const std::string& cookie, const std::string& csrf,
                          const std::string& priority) {
        return http->Post(
            ("/runs/" + id + "/modify").c_str(), httplib::Headers{{"Cookie", cookie}},
            httplib::Params{
                {"csrf", csrf}, {"priority", priority}, {"description", "from the form"}});
    };

    const auto [bob_cookie, bob_csrf] = login(bob);
    EXPECT_EQ(bob_csrf, "") << "bob's page has a form for alice's run";
    const httplib::Result bob_page =
        http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", bob_cookie}});
    EXPECT_NE(bob_page->body.find("belongs to alice"), std::string::npos);
    // Bob posts the form all the same, with his own session's secret: 403.
    const httplib::Result logout_page =
        http->Get("/login", httplib::Headers{{"Cookie", bob_cookie}});
    const std::string marker = "name=\"csrf\" value=\"";
    const size_t at = logout_page->body.find(marker);
    ASSERT_NE(at, std::string::npos);
    const std::string bob_secret = logout_page->body.substr(at + marker.size(), 64);
    const httplib::Result bob_sends = send(bob_cookie, bob_secret, "9");
    ASSERT_TRUE(bob_sends);
    EXPECT_EQ(bob_sends->status, 403) << bob_sends->body;
    EXPECT_EQ(state_of(run.id()), before);

    const auto [cookie, csrf] = login(alice);
    ASSERT_EQ(csrf.size(), 64u);
    // Without the session's secret (a form on another site), or without a session: refused.
    for (const httplib::Result& forged :
         {send(cookie, "", "9"), send(cookie, bob_secret, "9"), send("", csrf, "9")}) {
        ASSERT_TRUE(forged);
        EXPECT_TRUE(forged->status == 403 || forged->status == 401) << forged->status;
        EXPECT_EQ(state_of(run.id()), before);
    }
    // A REST change never takes the session cookie for a token.
    const httplib::Result cookie_rest =
        http->Post(("/api/v1/runs/" + id + ":stop").c_str(), httplib::Headers{{"Cookie", cookie}},
                   "", "application/json");
    EXPECT_EQ(cookie_rest->status, 401);
    // With both, the change is made and recorded as alice's.
    const httplib::Result sent = send(cookie, csrf, "4");
    ASSERT_TRUE(sent);
    EXPECT_EQ(sent->status, 303) << sent->body;
    const v1::RunStatus changed = get(run.id());
    EXPECT_EQ(changed.spec().priority(), 4);
    EXPECT_EQ(changed.spec().description(), "from the form");
    ASSERT_EQ(changed.changes_size(), 2);
    EXPECT_EQ(changed.changes(0).user(), "alice");
    const httplib::Result page =
        http->Get(("/runs/" + id).c_str(), httplib::Headers{{"Cookie", cookie}});
    EXPECT_NE(page->body.find("<h2>History</h2>"), std::string::npos);
    EXPECT_NE(page->get_header_value("Cache-Control").find("no-store"), std::string::npos);
    // After a logout the cookie is worth nothing.
    const httplib::Result out = http->Post("/logout", httplib::Headers{{"Cookie", cookie}},
                                           httplib::Params{{"csrf", csrf}});
    EXPECT_EQ(out->status, 303);
    const httplib::Result after = send(cookie, csrf, "2");
    EXPECT_EQ(after->status, 401);
    EXPECT_EQ(get(run.id()).spec().priority(), 4);
}

TEST_F(OwnersTest, ARunThatPassesStartsItsFollowUpAtTheLongerTimeControl) {
    // A short test whose H1 promotes the patch to a long one, as one line of two stages.
    const CommandResult submitted =
        cli_as(alice, {"submit", "a", "b", "--tc", "nodes=300", "--games", "1000",
                       "--pairs-per-thread", "256", "--then-tc", "60+0.6", "--then-elo0", "0.5",
                       "--then-elo1", "2.5", "--description", "short, then long"});
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    const CommandResult planned = cli_as(alice, {"show", "1"});
    EXPECT_NE(planned.out.find("on H1: 60+0.6, SPRT [0.50, 2.50]; not started"), std::string::npos)
        << planned.out;
    // One worker reports 256 pairs, each a win and a draw for a: the SPRT accepts H1.
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_EQ(work.lease().openings_size(), 256);
    std::vector<uint32_t> all(256);
    for (uint32_t i = 0; i < 256; ++i) all[i] = i;
    v1::ReportResultsResponse ack;
    ASSERT_TRUE(workers
                    ->ReportResults(Cluster::context(cluster->worker_token).get(),
                                    report(worker, work.lease().lease_id(), 1, all), &ack)
                    .ok());
    const v1::RunStatus first = get(1);
    EXPECT_EQ(first.result(), "H1 accepted");
    ASSERT_EQ(first.follow_up_run_id(), 2);
    const v1::RunStatus second = get(2);
    EXPECT_EQ(second.follows_run_id(), 1);
    EXPECT_EQ(second.state(), v1::RUN_STATE_ACTIVE);
    EXPECT_EQ(second.spec().time_control().clock().base_ms(), 60000u);
    EXPECT_EQ(second.spec().time_control().clock().increment_ms(), 600u);
    EXPECT_EQ(second.spec().sprt().elo0(), 0.5);
    EXPECT_EQ(second.spec().sprt().elo1(), 2.5);
    EXPECT_EQ(second.spec().games(), 1000u);
    EXPECT_EQ(second.spec().owner(), "alice");
    EXPECT_EQ(second.spec().description(), "short, then long");
    EXPECT_EQ(second.book_size(), first.book_size());
    const CommandResult runs = cli_as(bob, {"runs"});
    EXPECT_NE(runs.out.find("H1 accepted -> run 2"), std::string::npos) << runs.out;
    EXPECT_NE(runs.out.find("run 1 -> active"), std::string::npos) << runs.out;
    const CommandResult shown = cli_as(bob, {"show", "2"});
    EXPECT_NE(shown.out.find("follows:"), std::string::npos) << shown.out;
    const httplib::Result list = http->Get("/");
    EXPECT_NE(list->body.find("H1 accepted</span> → <a href=\"/runs/2\">run 2</a>"),
              std::string::npos);
    EXPECT_NE(list->body.find("stage 2 of <a href=\"/runs/1\">run 1</a>"), std::string::npos);

    // What cannot be a follow-up is refused at submission.
    const CommandResult fixed =
        cli_as(alice, {"submit", "a", "b", "--kind", "fixed", "--then-tc", "60+0.6"});
    EXPECT_NE(fixed.status, 0);
    EXPECT_NE(fixed.err.find("regression run"), std::string::npos) << fixed.err;
    const CommandResult on =
        cli_as(alice, {"submit", "a", "b", "--then-tc", "1+0.01", "--then-on", "H2"});
    EXPECT_NE(on.err.find("H1, H0 or any"), std::string::npos) << on.err;
    v1::SubmitRunRequest request;
    *request.mutable_spec() = fixed_games_spec(10);
    request.mutable_spec()->mutable_follow_up()->mutable_time_control()->set_nodes(500);
    v1::RunStatus refused;
    const grpc::Status status =
        cluster->users()->SubmitRun(Cluster::context(alice).get(), request, &refused);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("follow-up goes with a regression"), std::string::npos)
        << status.error_message();
    request.mutable_spec()->set_kind(v1::RUN_KIND_REGRESSION);
    request.mutable_spec()->mutable_sprt()->set_elo1(5);
    request.mutable_spec()->mutable_sprt()->set_alpha(0.05);
    request.mutable_spec()->mutable_sprt()->set_beta(0.05);
    request.mutable_spec()->mutable_follow_up()->set_games(7);
    const grpc::Status odd =
        cluster->users()->SubmitRun(Cluster::context(alice).get(), request, &refused);
    EXPECT_EQ(odd.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(odd.error_message().find("the follow-up: games"), std::string::npos)
        << odd.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 2);
}

}  // namespace
}  // namespace sparring::testing
