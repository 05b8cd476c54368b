// The dashboard and REST API end to end: a real coordinator serving --http-listen and a real
// worker playing an SPRT run; every REST answer equals the gRPC answer for the same call,
// mutations need a user token, and bad requests change nothing; a run stopped by a failure
// message cut inside a character, or stored so before a restart, is served everywhere (issue 32).
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "cluster.h"
#include "common/printable.h"
#include "coordinator/storage/sqlite.h"
#include "coordinator/web/html.h"
#include "coordinator/web/json.h"
#include "loopback.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;
using coordinator::web::escape_html;
using coordinator::web::to_json;

class DashboardTest : public ::testing::Test {
  protected:
    void SetUp() override {
        // The coordinator may answer an oversized request (413) and close before the client
        // has written all of it: the client's write then fails with EPIPE, which must not kill
        // the test process.
        std::signal(SIGPIPE, SIG_IGN);
        port_file = ::testing::TempDir() + "sparring-http-" + std::to_string(getpid()) + ".port";
        std::filesystem::remove(port_file);
        cluster = std::make_unique<Cluster>(std::vector<std::string>{
            "--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
        connect();
    }

    // Connects the client to the HTTP port the coordinator wrote (another after each start).
    void connect() {
        wait_until([&] { return std::filesystem::exists(port_file); }, 5s, 10ms);
        std::ifstream in(port_file);
        port = 0;
        in >> port;
        ASSERT_GT(port, 0) << "no port in " << port_file;
        http = std::make_unique<httplib::Client>("127.0.0.1", port);
        http->set_read_timeout(10s);
    }

    // Adds the versions a and b and submits a fixed-games run of a against b; returns its id, or
    // 0 if refused.
    int64_t submit_fixed_run(uint64_t games = 100) {
        cluster->add_version("a");
        cluster->add_version("b");
        v1::SubmitRunRequest submit;
        *submit.mutable_spec() = fixed_games_spec(games);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Returns the first update of a run's live feed, without a token (the page's viewers
    // need none), or an empty string.
    std::string first_live_update(int64_t run_id) {
        std::string received;
        http->Get(("/runs/" + std::to_string(run_id) + "/events").c_str(),
                  [&](const char* data, size_t size) {
                      received.append(data, size);
                      return received.find("\n\n") == std::string::npos ||
                             received.rfind(": keep-alive", 0) == 0;
                  });
        const size_t start = received.find("data: ");
        return start == std::string::npos ? std::string() : received.substr(start);
    }

    // Checks that the coordinator serves a run (live feed, page, REST, and the CLI's runs, show
    // and stop) whose result holds `result_part`, all in valid UTF-8, and still runs after.
    void expect_run_served(int64_t run_id, const std::string& result_part) {
        const std::string id = std::to_string(run_id);
        const std::string update = first_live_update(run_id);
        EXPECT_NE(update.find(result_part), std::string::npos) << update;
        EXPECT_TRUE(is_valid_utf8(update));
        const std::string page = get("/runs/" + id);
        EXPECT_NE(page.find(result_part), std::string::npos);
        EXPECT_TRUE(is_valid_utf8(page));
        const std::string rest = get("/api/v1/runs/" + id);
        EXPECT_NE(rest.find(result_part), std::string::npos) << rest;
        EXPECT_TRUE(is_valid_utf8(rest));
        const CommandResult runs = cluster->cli({"runs"});
        EXPECT_EQ(runs.status, 0) << runs.err;
        EXPECT_NE(runs.out.find("stopped"), std::string::npos) << runs.out;
        const CommandResult show = cluster->cli({"show", id});
        EXPECT_EQ(show.status, 0) << show.err;
        EXPECT_NE(show.out.find(result_part), std::string::npos) << show.out;
        // The run has ended: stop says so, in words, rather than failing to read the answer.
        const CommandResult stop = cluster->cli({"stop", id});
        EXPECT_EQ(stop.err.find("No message returned"), std::string::npos) << stop.err;
        EXPECT_NE(stop.out + stop.err, "");
        EXPECT_EQ(kill(cluster->coordinator_pid(), 0), 0) << "the coordinator ended";
        get("/");
    }

    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        std::filesystem::remove(port_file);
    }

    // Returns the body of a GET that must answer 200.
    std::string get(const std::string& path) {
        const httplib::Result result = http->Get(path.c_str());
        if (!result) {
            ADD_FAILURE() << "GET " << path << ": no answer";
            return {};
        }
        EXPECT_EQ(result->status, 200) << path << ": " << result->body;
        return result->body;
    }

    // Posts a JSON body with a token (none when empty); returns the answer.
    httplib::Result post(const std::string& path, const std::string& body,
                         const std::string& token) {
        httplib::Headers headers;
        if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
        return http->Post(path.c_str(), headers, body, "application/json");
    }

    std::string port_file;
    int port = 0;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<httplib::Client> http;
};

// Returns an SPRT run of version a against b, at most `games` games, in JSON.
v1::RunSpec sprt_spec(uint64_t games) {
    v1::RunSpec spec = fixed_games_spec(games);
    spec.set_kind(v1::RUN_KIND_REGRESSION);
    spec.mutable_sprt()->set_elo0(0);
    spec.mutable_sprt()->set_elo1(10);
    spec.mutable_sprt()->set_alpha(0.05);
    spec.mutable_sprt()->set_beta(0.05);
    spec.set_description("<script>alert(1)</script>");
    return spec;
}

// Issue 32, as reported: three workers of one token fail a run's leases with a message of 511
// bytes and an "é"; the run stops with that message in its result, cut to 512 bytes. The cut
// kept the "é" out (it once split it, and the next live update ended the process), and every
// way of reading the run answers, over HTTP, REST and the CLI.
TEST_F(DashboardTest, AFailureMessageCutInsideACharacterStopsTheRunAndEverythingServesIt) {
    const int64_t run_id = submit_fixed_run();
    ASSERT_GT(run_id, 0);
    const std::string message = std::string(511, 'a') + "\xc3\xa9";
    auto workers = cluster->workers();
    for (int i = 0; i < 3; ++i) {
        const int64_t worker = register_worker(*workers, cluster->worker_token);
        ASSERT_GT(worker, 0);
        v1::RequestWorkResponse work;
        ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
        ASSERT_TRUE(work.has_lease()) << "worker " << i;
        v1::ReleaseLeaseRequest release;
        release.set_worker_id(worker);
        release.set_lease_id(work.lease().lease_id());
        release.set_reason(v1::RELEASE_REASON_ENGINE_FAILURE);
        release.set_message(message);
        v1::ReleaseLeaseResponse released;
        const grpc::Status status = workers->ReleaseLease(
            Cluster::context(cluster->worker_token).get(), release, &released);
        ASSERT_TRUE(status.ok()) << status.error_message();
    }
    const v1::RunStatus stopped = cluster->wait_for_run(run_id, 30s);
    ASSERT_EQ(stopped.state(), v1::RUN_STATE_STOPPED);
    EXPECT_TRUE(is_valid_utf8(stopped.result()));
    EXPECT_NE(stopped.result().find(std::string(511, 'a') + "... (513 bytes)"), std::string::npos)
        << stopped.result();
    expect_run_served(run_id, std::string(511, 'a') + "... (513 bytes)");
    // A second viewer, and the first update once more: the hub still runs.
    EXPECT_NE(first_live_update(run_id).find("aaaa"), std::string::npos);
}

// Issue 32, after a restart: a database that already holds a result with invalid UTF-8 (as the
// coordinators before the fix stored it) is repaired when the coordinator starts, and served.
TEST_F(DashboardTest, ARestartRepairsTextStoredAsInvalidUtf8AndServesIt) {
    const int64_t run_id = submit_fixed_run();
    ASSERT_GT(run_id, 0);
    cluster->stop_coordinator(SIGTERM);
    {
        coordinator::Database raw(cluster->db);
        coordinator::Statement& stop = raw.prepare(
            "UPDATE runs SET state = 'stopped', result = ?, finished_ms = created_ms "
            "WHERE id = ?");
        stop.bind(
                "stopped: its leases failed on 3 workers (last: " + std::string(511, 'a') + "\xc3)",
                run_id)
            .run();
        raw.exec("PRAGMA user_version = 9");
    }
    ASSERT_EQ(cluster->query("SELECT count(*) FROM runs WHERE result LIKE '%' || X'c3' || ')'"), 1);
    std::filesystem::remove(port_file);
    cluster->start_coordinator();
    connect();
    const std::string repaired = std::string(511, 'a') + "\xef\xbf\xbd)";
    EXPECT_EQ(cluster->query("SELECT instr(result, char(65533)) > 0 FROM runs WHERE id = " +
                             std::to_string(run_id)),
              1);
    expect_run_served(run_id, repaired);
}

// Issue 50: the live page's updates are written from the events of the reports (not by
// reading the run each time, which tests/web/test_live.cpp counts): while a worker plays, each
// update that reaches the page carries a run's counts that add up (W + D + L and twice the
// pentanomial pairs make its games, its workers' table the same games), and the last, once the
// run ended, the run's final counts as GetRun reads them.
TEST_F(DashboardTest, LiveUpdatesCarryTheReportsCountsAsTheyComeAndTheRunsLast) {
    const int64_t run_id = submit_fixed_run(600);  // played over a few seconds' updates
    ASSERT_GT(run_id, 0);
    httplib::Client stream("127.0.0.1", port);
    stream.set_read_timeout(60s);
    std::vector<nlohmann::json> updates;
    std::promise<void> joined;
    std::thread viewer([&] {
        std::string received;
        stream.Get(("/runs/" + std::to_string(run_id) + "/events").c_str(),
                   [&](const char* data, size_t size) {
                       received.append(data, size);
                       for (size_t end; (end = received.find("\n\n")) != std::string::npos;) {
                           const std::string message = received.substr(0, end);
                           received.erase(0, end + 2);
                           if (message.rfind("data: ", 0) != 0) continue;
                           updates.push_back(nlohmann::json::parse(message.substr(6)));
                           if (updates.size() == 1) joined.set_value();
                           if (!updates.back()["active"].get<bool>()) return false;
                       }
                       return true;
                   });
    });
    joined.get_future().wait_for(10s);
    Process& worker = cluster->start_worker("w1", 2);
    const v1::RunStatus finished = cluster->wait_for_run(run_id, 180s);
    viewer.join();
    worker.signal(SIGTERM);
    ASSERT_TRUE(worker.wait_exit(30s));
    ASSERT_EQ(finished.state(), v1::RUN_STATE_FINISHED);
    ASSERT_GE(updates.size(), 2u);
    const auto number = [](const nlohmann::json& text) {
        return std::stoull("0" +
                           std::regex_replace(text.get<std::string>(), std::regex("\\D"), ""));
    };
    uint64_t last_games = 0;
    int progressing = 0;
    for (const nlohmann::json& update : updates) {
        const nlohmann::json& f = update["fields"];
        const uint64_t games = number(f["games"]);
        EXPECT_GE(games, last_games) << update;
        last_games = games;
        EXPECT_EQ(number(f["wins"]) + number(f["draws"]) + number(f["losses"]), games) << update;
        EXPECT_EQ(2 * (number(f["ll"]) + number(f["ld"]) + number(f["dd_wl"]) + number(f["wd"]) +
                       number(f["ww"])),
                  games)
            << update;
        if (games > 0 && update.contains("workers")) {
            // The workers' table adds up to the run's games (its games column, the third: after
            // the worker and its CPU class).
            uint64_t shown = 0;
            const std::string table = update["workers"];
            const std::regex row(
                "<tr[^>]*><td>[^<]*</td><td>[^<]*</td><td class=\"num\">([0-9,]+)</td>");
            for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it)
                shown += number(nlohmann::json((*it)[1].str()));
            EXPECT_EQ(shown, games) << table;
        }
        if (games > 0 && games < finished.games()) ++progressing;
    }
    EXPECT_GT(progressing, 0) << "no update while the run was being played";
    std::printf("%zu live updates, %d while the run was played\n", updates.size(), progressing);
    const nlohmann::json& last = updates.back();
    EXPECT_FALSE(last["active"].get<bool>());
    EXPECT_EQ(number(last["fields"]["games"]), finished.games());
    EXPECT_EQ(number(last["fields"]["wins"]), finished.wins());
    EXPECT_EQ(number(last["fields"]["draws"]), finished.draws());
    EXPECT_EQ(number(last["fields"]["losses"]), finished.losses());
}

TEST_F(DashboardTest, RestAnswersEqualTheGrpcAnswersOfAPlayedSprtRun) {
    cluster->add_version("a", "KnightValueMg=400");
    cluster->add_version("b");
    auto users = cluster->users();
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = sprt_spec(40);
    v1::RunStatus submitted;
    ASSERT_TRUE(
        users->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &submitted).ok());
    Process& worker = cluster->start_worker("w1", 2);
    const v1::RunStatus finished = cluster->wait_for_run(submitted.id(), 180s);
    ASSERT_EQ(finished.state(), v1::RUN_STATE_FINISHED);
    ASSERT_EQ(finished.games(), 40u);
    worker.signal(SIGTERM);
    ASSERT_TRUE(worker.wait_exit(30s));

    const std::string id = std::to_string(submitted.id());
    const auto context = [this] { return Cluster::context(cluster->user_token); };
    v1::GetRunRequest get_run;
    get_run.set_run_id(submitted.id());
    v1::RunStatus run;
    ASSERT_TRUE(users->GetRun(context().get(), get_run, &run).ok());
    EXPECT_EQ(get("/api/v1/runs/" + id), to_json(run));

    v1::ListRunsResponse runs;
    ASSERT_TRUE(users->ListRuns(context().get(), {}, &runs).ok());
    EXPECT_EQ(get("/api/v1/runs"), to_json(runs));
    v1::ListRunsRequest finished_only;
    finished_only.add_states(v1::RUN_STATE_FINISHED);
    finished_only.set_limit(5);
    ASSERT_TRUE(users->ListRuns(context().get(), finished_only, &runs).ok());
    EXPECT_EQ(get("/api/v1/runs?states=RUN_STATE_FINISHED&limit=5"), to_json(runs));
    // Filters and paging run in the database query, alike over both.
    v1::ListRunsRequest paged;
    paged.set_kind(v1::RUN_KIND_REGRESSION);
    paged.set_text("alert");
    paged.set_active_first(true);
    paged.set_limit(1);
    ASSERT_TRUE(users->ListRuns(context().get(), paged, &runs).ok());
    EXPECT_EQ(runs.total(), 1u);
    ASSERT_EQ(runs.runs_size(), 1);
    EXPECT_EQ(get("/api/v1/runs?kind=RUN_KIND_REGRESSION&text=alert&active_first=true&limit=1"),
              to_json(runs));
    paged.set_offset(1);
    ASSERT_TRUE(users->ListRuns(context().get(), paged, &runs).ok());
    EXPECT_EQ(runs.runs_size(), 0);
    EXPECT_EQ(runs.total(), 1u);
    EXPECT_EQ(get("/api/v1/runs?kind=RUN_KIND_REGRESSION&text=alert&active_first=true&limit=1"
                  "&offset=1"),
              to_json(runs));
    const httplib::Result bad_kind = http->Get("/api/v1/runs?kind=7");
    ASSERT_TRUE(bad_kind);
    EXPECT_EQ(bad_kind->status, 400) << bad_kind->body;

    v1::GetLlrHistoryRequest get_llr;
    get_llr.set_run_id(submitted.id());
    v1::LlrHistory llr;
    ASSERT_TRUE(users->GetLlrHistory(context().get(), get_llr, &llr).ok());
    EXPECT_EQ(get("/api/v1/runs/" + id + "/llr"), to_json(llr));
    ASSERT_GE(llr.points_size(), 2);
    EXPECT_EQ(llr.points(llr.points_size() - 1).games(), 40u);
    EXPECT_DOUBLE_EQ(llr.points(llr.points_size() - 1).llr(), run.llr());

    v1::ExportGamesRequest export_games;
    export_games.set_run_id(submitted.id());
    export_games.set_max_games(7);
    v1::ExportGamesResponse games;
    ASSERT_TRUE(users->ExportGames(context().get(), export_games, &games).ok());
    EXPECT_EQ(get("/api/v1/runs/" + id + "/pgn?max_games=7"), to_json(games));

    v1::ListVersionsResponse versions;
    ASSERT_TRUE(users->ListVersions(context().get(), {}, &versions).ok());
    EXPECT_EQ(get("/api/v1/versions"), to_json(versions));
    v1::GetVersionRequest get_version;
    get_version.set_name("a");
    v1::Version version;
    ASSERT_TRUE(users->GetVersion(context().get(), get_version, &version).ok());
    EXPECT_EQ(get("/api/v1/versions/a"), to_json(version));

    v1::ListWorkersRequest all_workers;
    all_workers.set_include_inactive(true);
    v1::ListWorkersResponse workers;
    ASSERT_TRUE(users->ListWorkers(context().get(), all_workers, &workers).ok());
    EXPECT_EQ(get("/api/v1/workers?include_inactive=true"), to_json(workers));

    // The pages: the run in the list and on its own page, its description escaped.
    const std::string list = get("/");
    EXPECT_NE(list.find("href=\"/runs/" + id + "\""), std::string::npos);
    const std::string page = get("/runs/" + id);
    EXPECT_NE(page.find("id=\"llr-plot\""), std::string::npos);
    EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(page.find("maximum games reached"), std::string::npos);
    // The worker that played every game, with all of them and no residual to speak of.
    ASSERT_EQ(llr.workers_size(), 1);
    EXPECT_EQ(llr.workers(0).name(), "w1");
    EXPECT_EQ(llr.workers(0).games(), 40u);
    EXPECT_DOUBLE_EQ(llr.workers(0).residual(), 0);
    EXPECT_NE(page.find("<h2>Workers</h2>"), std::string::npos);
    EXPECT_EQ(llr.leases_size(), 0);
    // The page and every file it loads, as a browser fetches them, weigh under 300 KB.
    size_t weight = page.size();
    for (const char* attribute : {"src=\"/static/", "href=\"/static/"})
        for (size_t at = page.find(attribute); at != std::string::npos;
             at = page.find(attribute, at + 1)) {
            const size_t start = at + std::string_view(attribute).size() - 8;
            weight += get(page.substr(start, page.find('"', start) - start)).size();
        }
    EXPECT_GT(weight, 100'000u);  // dygraphs itself is counted
    EXPECT_LT(weight, 300'000u);
    const std::string pgn = get("/runs/" + id + "/pgn");
    EXPECT_EQ(size_t(std::count(pgn.begin(), pgn.end(), '\n') > 0), 1u);
    size_t events = 0;
    for (size_t at = pgn.find("[Event "); at != std::string::npos; at = pgn.find("[Event ", at + 1))
        ++events;
    EXPECT_EQ(events, 40u);

    // Errors: JSON with the gRPC status name and the HTTP code.
    const httplib::Result missing = http->Get("/api/v1/runs/999999");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    EXPECT_NE(missing->body.find("\"status\":\"NOT_FOUND\""), std::string::npos) << missing->body;
    const httplib::Result unknown = http->Get("/api/v1/runs?colour=blue");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 400);
    EXPECT_NE(unknown->body.find("INVALID_ARGUMENT"), std::string::npos);
    // An error quotes a little of what was sent, never the request back (issue 32).
    const std::string long_name(4000, 'n');
    const httplib::Result long_unknown = http->Get("/api/v1/runs?" + long_name + "=1");
    ASSERT_TRUE(long_unknown);
    EXPECT_EQ(long_unknown->status, 400);
    EXPECT_NE(long_unknown->body.find("unknown parameter 'nnnn"), std::string::npos)
        << long_unknown->body.substr(0, 200);
    EXPECT_LT(long_unknown->body.size(), 400u);
    const httplib::Result long_id = http->Get("/api/v1/runs/" + std::string(3000, '9'));
    ASSERT_TRUE(long_id);
    EXPECT_EQ(long_id->status, 400);
    EXPECT_LT(long_id->body.size(), 400u) << long_id->body.substr(0, 200);
    const httplib::Result long_json =
        post("/api/v1/runs", "{\"" + std::string(100'000, 'f') + "\": 1}", cluster->user_token);
    ASSERT_TRUE(long_json);
    EXPECT_EQ(long_json->status, 400);
    EXPECT_NE(long_json->body.find("INVALID_ARGUMENT"), std::string::npos);
    EXPECT_LT(long_json->body.size(), 700u) << long_json->body.substr(0, 200);
    const httplib::Result stop_finished =
        post("/api/v1/runs/" + id + ":stop", "", cluster->user_token);
    ASSERT_TRUE(stop_finished);
    EXPECT_EQ(stop_finished->status, 409) << stop_finished->body;
    EXPECT_NE(stop_finished->body.find("FAILED_PRECONDITION"), std::string::npos);
}

// Sends a raw request and returns the whole answer (the server closes the connection).
std::string raw_request(int port, const std::string& request) {
    const int fd = connect_to(port);
    if (fd < 0) return "";
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string response;
    char buffer[4096];
    for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;)
        response.append(buffer, size_t(n));
    close(fd);
    return response;
}

TEST_F(DashboardTest, SlowAndHostileClientsDelayNoOtherRequest) {
    // Twenty clients trickle their request headers a byte a second, for 9 s each.
    constexpr int kSlow = 20;
    const auto trickle_time = 9s;
    std::vector<int> slow;
    for (int i = 0; i < kSlow; ++i) {
        slow.push_back(connect_to(port));
        ASSERT_GE(slow.back(), 0);
        const std::string head = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        send(slow.back(), head.data(), head.size(), MSG_NOSIGNAL);
    }
    const auto started = std::chrono::steady_clock::now();
    std::thread trickle([&slow] {
        for (const char c : std::string("X-Slow: 1")) {
            for (const int fd : slow) send(fd, &c, 1, MSG_NOSIGNAL);
            std::this_thread::sleep_for(1s);  // the slow clients' pace, under test
        }
        for (const int fd : slow) send(fd, "\r\nConnection: close\r\n\r\n", 23, MSG_NOSIGNAL);
    });
    // Others send huge headers meanwhile: many lines, or one line too long. Each answer ends
    // when the server closes the connection after its 2 s keep-alive, so they run alongside
    // the requests below.
    std::string many;
    for (int i = 0; i < 200; ++i)
        many += "X-" + std::to_string(i) + ": " + std::string(100, 'a') + "\r\n";
    std::future<std::string> huge_many = std::async(std::launch::async, [&] {
        return raw_request(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + "\r\n");
    });
    std::future<std::string> huge_line = std::async(std::launch::async, [this] {
        return raw_request(port,
                           "GET / HTTP/1.1\r\nX-Long: " + std::string(10000, 'a') + "\r\n\r\n");
    });
    for (int round = 0; round < 4; ++round) {
        for (const char* path : {"/metrics", "/", "/api/v1/runs"}) {
            httplib::Client client("127.0.0.1", port);
            client.set_read_timeout(10s);
            const auto start = std::chrono::steady_clock::now();
            const httplib::Result result = client.Get(path);
            const auto elapsed = std::chrono::steady_clock::now() - start;
            ASSERT_TRUE(result) << path;
            EXPECT_EQ(result->status, 200) << path;
            // A request queued behind the slow clients would wait out their 9 s trickle; the
            // HTTP threads run niced, so a loaded CI machine can hold one back for a second.
            EXPECT_LT(elapsed, 3s) << path << " waited for the slow clients";
        }
        std::this_thread::sleep_for(1s);  // the rounds span the slow clients' trickle
    }
    const std::string too_many = huge_many.get();
    EXPECT_TRUE(too_many.starts_with("HTTP/1.1 431 ")) << too_many.substr(0, 200);
    const std::string too_long = huge_line.get();
    EXPECT_TRUE(too_long.starts_with("HTTP/1.1 400 ")) << too_long.substr(0, 200);
    // Every request above was answered while the slow clients were still sending.
    EXPECT_LT(std::chrono::steady_clock::now() - started, trickle_time);
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

// Returns the resident memory of a process, in KiB.
long rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

// Sends `head`, then `piece` over and over up to `total` bytes until the server stops taking
// them (closes, resets, or leaves the socket full for 2 s); returns the answer's first bytes
// and sets *sent to the bytes the server took.
std::string flood(int port, const std::string& head, const std::string& piece, size_t total,
                  size_t* sent) {
    const int fd = connect_to(port);
    if (fd < 0) return "";
    send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    *sent = 0;
    while (*sent < total) {
        pollfd p{fd, POLLOUT, 0};
        if (poll(&p, 1, 2000) <= 0) break;
        const ssize_t n = send(fd, piece.data(), piece.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n <= 0) break;
        *sent += size_t(n);
    }
    std::string response;
    char buffer[4096];
    timeval timeout{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    for (ssize_t n; response.size() < 4096 && (n = recv(fd, buffer, sizeof buffer, 0)) > 0;)
        response.append(buffer, size_t(n));
    close(fd);
    return response;
}

TEST_F(DashboardTest, FloodsWithoutATokenLeaveTheCoordinatorsMemoryBounded) {
    // Issue 32: 300 MB of header lines took the coordinator from 82 MB to 1.17 GB, and a 200 MB
    // chunked body without a token added 193 MB before its 401.
    const pid_t pid = cluster->coordinator_pid();
    get("/");
    const long before = rss_kib(pid);
    std::string lines;
    for (int i = 0; i < 600; ++i)
        lines += "X-Flood-" + std::to_string(i) + ": " + std::string(90, 'a') + "\r\n";
    size_t sent = 0;
    const std::string header_answer =
        flood(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", lines, 300u << 20, &sent);
    EXPECT_TRUE(header_answer.starts_with("HTTP/1.1 431 ")) << header_answer.substr(0, 200);
    EXPECT_LT(sent, 64u << 20) << "the coordinator kept reading a header flood";
    const std::string data(64 * 1024, ' ');
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    const std::string chunk = size + data + "\r\n";
    const std::string chunked_answer =
        flood(port,
              "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              "Transfer-Encoding: chunked\r\n\r\n",
              chunk, 200u << 20, &sent);
    EXPECT_TRUE(chunked_answer.starts_with("HTTP/1.1 413 ")) << chunked_answer.substr(0, 200);
    EXPECT_NE(chunked_answer.find("RESOURCE_EXHAUSTED"), std::string::npos) << chunked_answer;
    EXPECT_LT(sent, 64u << 20) << "the coordinator kept reading a chunked body over 1 MiB";
    const long after = rss_kib(pid);
    EXPECT_LT(after - before, 50 * 1024) << "RSS " << before << " -> " << after << " KiB";
    EXPECT_EQ(kill(pid, 0), 0);
    get("/");
}

TEST_F(DashboardTest, PagesAndMetricsAnswerWhileHundredsOfSlowConnectionsAreOpen) {
    // Issue 32: each connection held a pool thread, and 530 trickling ones blocked the
    // dashboard for over 30 s. Now they hold none, each is closed at its request deadline, and
    // one address gets no more than its share.
    cluster.reset();
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--http-listen", "127.0.0.1:0", "--http-port-file", port_file,
        "--http-request-timeout-seconds", "8", "--http-max-connections-per-address", "400"});
    connect();
    constexpr int kSlow = 390;
    std::vector<int> slow;
    const std::string head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (int i = 0; i < kSlow; ++i) {
        slow.push_back(connect_to(port));
        ASSERT_GE(slow.back(), 0);
        send(slow.back(), head.data(), head.size(), MSG_NOSIGNAL);
    }
    const auto started = std::chrono::steady_clock::now();
    // Meanwhile pages and metrics answer.
    for (const char* path : {"/metrics", "/", "/api/v1/runs", "/workers"}) {
        httplib::Client client("127.0.0.1", port);
        client.set_read_timeout(10s);
        const auto start = std::chrono::steady_clock::now();
        const httplib::Result result = client.Get(path);
        ASSERT_TRUE(result) << path;
        EXPECT_EQ(result->status, 200) << path;
        EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << path;
    }
    // Past the per-address cap, a connection is closed at once, unread.
    std::vector<int> extra;
    for (int i = 0; i < 20; ++i) extra.push_back(connect_to(port));
    int refused = 0;
    std::vector<bool> counted(extra.size(), false);
    for (int round = 0; round < 30; ++round) {
        for (size_t i = 0; i < extra.size(); ++i) {
            char byte;
            if (!counted[i] && recv(extra[i], &byte, 1, MSG_DONTWAIT) == 0) {
                counted[i] = true;
                ++refused;
            }
        }
        // Closes counted over a time span (as many as the server makes in it).
        std::this_thread::sleep_for(50ms);
    }
    for (const int fd : extra) close(fd);
    // At least the ten past 400 (more while the server has yet to see the probes' closes).
    EXPECT_GE(refused, 20 - (400 - kSlow)) << "the cap of 400 connections per address";
    // The slow ones trickle a byte every 500 ms and are closed at their 8 s deadline.
    int closed = 0;
    std::vector<bool> open(slow.size(), true);
    while (std::chrono::steady_clock::now() - started < 30s && closed < kSlow) {
        for (size_t i = 0; i < slow.size(); ++i) {
            if (!open[i]) continue;
            char buffer[512];
            const ssize_t n = recv(slow[i], buffer, sizeof buffer, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
                send(slow[i], "a", 1, MSG_NOSIGNAL) < 0) {
                open[i] = false;
                ++closed;
            }
        }
        std::this_thread::sleep_for(500ms);  // the slow clients' pace, under test
    }
    EXPECT_EQ(closed, kSlow) << "slow connections outlived their request deadline";
    EXPECT_GE(std::chrono::steady_clock::now() - started, 7s);
    for (const int fd : slow) close(fd);
    get("/metrics");
}

TEST_F(DashboardTest, MutationsNeedAUserTokenAndBadRequestsChangeNothing) {
    cluster->add_version("a", "KnightValueMg=400");
    cluster->add_version("b");
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = sprt_spec(40);
    const std::string run_json = to_json(submit);
    v1::AddVersionRequest add;
    add.mutable_version()->set_name("c");
    add.mutable_version()->mutable_uci()->set_command("/bin/true");
    const std::string version_json = to_json(add);
    const auto state = [this] {
        return std::to_string(cluster->query("SELECT count(*) FROM runs")) + " runs, " +
               std::to_string(cluster->query("SELECT count(*) FROM versions")) + " versions";
    };
    const std::string before = state();

    struct Case {
        std::string path, body, token;
        int status;
        std::string grpc_status;
    };
    const std::vector<Case> cases = {
        {"/api/v1/runs", run_json, "", 401, "UNAUTHENTICATED"},
        {"/api/v1/runs", run_json, "spu_forged", 401, "UNAUTHENTICATED"},
        {"/api/v1/runs", run_json, cluster->worker_token, 403, "PERMISSION_DENIED"},
        {"/api/v1/versions", version_json, "", 401, "UNAUTHENTICATED"},
        {"/api/v1/versions", version_json, cluster->worker_token, 403, "PERMISSION_DENIED"},
        {"/api/v1/runs/1:stop", "", cluster->worker_token, 403, "PERMISSION_DENIED"},
        {"/api/v1/runs", "{\"spec\": {", cluster->user_token, 400, "INVALID_ARGUMENT"},
        {"/api/v1/runs", R"({"spec": {"test_version": "a", "colour": "blue"}})",
         cluster->user_token, 400, "INVALID_ARGUMENT"},
        {"/api/v1/runs", R"({"spec": {"test_version": "a", "base_version": "b"}})",
         cluster->user_token, 400, "INVALID_ARGUMENT"},
        {"/api/v1/runs", std::string(2 << 20, ' '), cluster->user_token, 413, "RESOURCE_EXHAUSTED"},
    };
    for (const Case& c : cases) {
        const httplib::Result result = post(c.path, c.body, c.token);
        ASSERT_TRUE(result) << c.path;
        EXPECT_EQ(result->status, c.status) << c.path << " " << c.body.substr(0, 60);
        EXPECT_NE(result->body.find("\"status\":\"" + c.grpc_status + "\""), std::string::npos)
            << result->body;
        EXPECT_NE(result->body.find("\"code\":" + std::to_string(c.status)), std::string::npos)
            << result->body;
        EXPECT_EQ(state(), before) << c.path;
    }

    // With a user token the same requests go through, as over gRPC.
    const httplib::Result version = post("/api/v1/versions", version_json, cluster->user_token);
    ASSERT_TRUE(version);
    EXPECT_EQ(version->status, 200) << version->body;
    EXPECT_NE(version->body.find("\"name\":\"c\""), std::string::npos);
    const httplib::Result run = post("/api/v1/runs", run_json, cluster->user_token);
    ASSERT_TRUE(run);
    ASSERT_EQ(run->status, 200) << run->body;
    v1::RunStatus submitted;
    ASSERT_TRUE(coordinator::web::from_json(run->body, &submitted).ok());
    const httplib::Result stopped =
        post("/api/v1/runs/" + std::to_string(submitted.id()) + ":stop", "", cluster->user_token);
    ASSERT_TRUE(stopped);
    EXPECT_EQ(stopped->status, 200) << stopped->body;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs WHERE state = 'stopped'"), 1);
}

// A run whose games need more openings than its book has at a node limit says so wherever it
// is read: in the answer to its submission over REST, over gRPC, above its page's figures and in
// `sparring show`; a run within its book, or at movetime, says nothing.
TEST_F(DashboardTest, ARunThatWouldReplayItsBookWarnsWhereverItIsRead) {
    cluster->add_version("a");
    cluster->add_version("b");
    const auto submit_over_rest = [&](const v1::RunSpec& spec) {
        v1::SubmitRunRequest submit;
        *submit.mutable_spec() = spec;
        const httplib::Result answer = post("/api/v1/runs", to_json(submit), cluster->user_token);
        v1::RunStatus run;
        EXPECT_TRUE(answer && answer->status == 200) << (answer ? answer->body : "no answer");
        if (answer) {
            EXPECT_TRUE(coordinator::web::from_json(answer->body, &run).ok());
        }
        return run;
    };
    const auto read_over_grpc = [&](int64_t id) {
        v1::GetRunRequest request;
        request.set_run_id(id);
        v1::RunStatus run;
        EXPECT_TRUE(cluster->users()
                        ->GetRun(Cluster::context(cluster->user_token).get(), request, &run)
                        .ok());
        return run;
    };

    // 6 games are 3 pairs, and fixed_games_spec's book has 2 openings.
    const v1::RunStatus replays = submit_over_rest(fixed_games_spec(6));
    ASSERT_GT(replays.id(), 0);
    const std::string expected =
        "6 games need 3 openings, and the book has 2. At nodes=300 a game is decided by its "
        "opening and its engines, so the pair past the book's end would replay games already "
        "played: it adds no information, yet Elo, its interval and the SPRT would count it as "
        "new. Use a book of at least 3 openings (sparring book generate --out FILE --positions 3).";
    ASSERT_EQ(replays.warnings_size(), 1);
    EXPECT_EQ(replays.warnings(0), expected);
    const std::string id = std::to_string(replays.id());
    const v1::RunStatus read = read_over_grpc(replays.id());
    ASSERT_EQ(read.warnings_size(), 1);
    EXPECT_EQ(read.warnings(0), expected);
    EXPECT_EQ(get("/api/v1/runs/" + id), to_json(read));
    const std::string page = get("/runs/" + id);
    const size_t warning =
        page.find("<p class=\"warning\"><strong>Warning:</strong> " + escape_html(expected));
    EXPECT_NE(warning, std::string::npos) << page;
    EXPECT_LT(warning, page.find("<section class=\"decide"))
        << "the warning is not above the figures";
    const CommandResult show = cluster->cli({"show", id});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("warning:"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find(expected), std::string::npos) << show.out;
    // The runs list and `sparring runs` give the first sentence, the list's title the whole.
    const std::string first = "6 games need 3 openings, and the book has 2.";
    const std::string list = get("/");
    EXPECT_NE(list.find("<div class=\"desc warn\" title=\"" + escape_html(expected) +
                        "\">Warning: " + first + "</div>"),
              std::string::npos)
        << list;
    const CommandResult runs = cluster->cli({"runs"});
    ASSERT_EQ(runs.status, 0) << runs.err;
    EXPECT_NE(runs.out.find("warning: run " + id + ": " + first + " (sparring show " + id + ")"),
              std::string::npos)
        << runs.out;

    v1::RunSpec at_movetime = fixed_games_spec(6);
    at_movetime.mutable_time_control()->Clear();
    at_movetime.mutable_time_control()->set_movetime_ms(50);
    for (const v1::RunSpec& spec : {fixed_games_spec(4), at_movetime}) {
        const v1::RunStatus quiet = submit_over_rest(spec);
        ASSERT_GT(quiet.id(), 0);
        EXPECT_EQ(quiet.warnings_size(), 0) << quiet.warnings(0);
        EXPECT_EQ(read_over_grpc(quiet.id()).warnings_size(), 0);
        EXPECT_EQ(get("/runs/" + std::to_string(quiet.id())).find("class=\"warning\""),
                  std::string::npos);
    }
    // One run warns, so the list and `sparring runs` hold one warning each.
    const std::string all = get("/");
    EXPECT_EQ(all.find("class=\"desc warn\""), all.rfind("class=\"desc warn\""));
    const std::string listed = cluster->cli({"runs"}).out;
    EXPECT_EQ(listed.find("warning: run "), listed.rfind("warning: run ")) << listed;
}

TEST_F(DashboardTest, PurgeNeedsAUserTokenAndTakesTheWorkersGamesOutOfTheRun) {
    cluster->add_version("a", "KnightValueMg=400");
    cluster->add_version("b");
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(40);
    v1::RunStatus submitted;
    ASSERT_TRUE(cluster->users()
                    ->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &submitted)
                    .ok());
    // Two workers report pairs of the run: two pairs (4 games) and three (6 games).
    auto stub = cluster->workers();
    int64_t ids[2] = {};
    for (int i = 0; i < 2; ++i) {
        ids[i] = register_worker(*stub, cluster->worker_token);
        ASSERT_NE(ids[i], 0);
        v1::RequestWorkResponse work;
        ASSERT_TRUE(request_work(*stub, cluster->worker_token, ids[i], &work).ok());
        ASSERT_TRUE(work.has_lease());
        std::vector<uint32_t> pairs = {0, 1};
        if (i == 1) pairs.push_back(2);
        v1::ReportResultsResponse ack;
        ASSERT_TRUE(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                        report(ids[i], work.lease().lease_id(), 1, pairs), &ack)
                        .ok());
    }
    const std::string id = std::to_string(submitted.id());
    const std::string run_path = "/api/v1/runs/" + id;
    const auto games = [&] {
        v1::RunStatus run;
        const absl::Status parsed = coordinator::web::from_json(get(run_path), &run);
        EXPECT_TRUE(parsed.ok()) << parsed;
        return run.games();
    };
    ASSERT_EQ(games(), 10u);
    const auto state = [this] {
        return std::to_string(cluster->query("SELECT count(*) FROM purges")) + " purges, " +
               std::to_string(cluster->query("SELECT count(*) FROM results WHERE purge_id = 0")) +
               " results counted";
    };
    const std::string before = state();
    const std::string body = "{\"worker_id\": " + std::to_string(ids[0]) + "}";

    struct Case {
        std::string path, body, token;
        int status;
        std::string grpc_status;
    };
    const std::string purge = run_path + ":purge";
    const std::vector<Case> cases = {
        {purge, body, "", 401, "UNAUTHENTICATED"},
        {purge, body, "spu_forged", 401, "UNAUTHENTICATED"},
        // The token is checked before the body is read: a bad body without one is still 401.
        {purge, "{\"worker_id\": ", "", 401, "UNAUTHENTICATED"},
        {purge, body, cluster->worker_token, 403, "PERMISSION_DENIED"},
        {purge, "{\"worker_id\": ", cluster->user_token, 400, "INVALID_ARGUMENT"},
        {purge, "{\"worker\": 1}", cluster->user_token, 400, "INVALID_ARGUMENT"},
        {purge, "{}", cluster->user_token, 400, "INVALID_ARGUMENT"},
        {purge, "", cluster->user_token, 400, "INVALID_ARGUMENT"},
        {"/api/v1/runs/999999:purge", body, cluster->user_token, 404, "NOT_FOUND"},
        {purge, "{\"worker_id\": 999999}", cluster->user_token, 404, "NOT_FOUND"},
    };
    for (const Case& c : cases) {
        const httplib::Result result = post(c.path, c.body, c.token);
        ASSERT_TRUE(result) << c.path;
        EXPECT_EQ(result->status, c.status) << c.path << " " << c.body << " " << result->body;
        EXPECT_NE(result->body.find("\"status\":\"" + c.grpc_status + "\""), std::string::npos)
            << result->body;
        EXPECT_EQ(state(), before) << c.path << " " << c.body;
        EXPECT_EQ(games(), 10u);
    }

    // With a user token the first worker's 4 games leave the run's totals, as over gRPC.
    const httplib::Result purged = post(purge, body, cluster->user_token);
    ASSERT_TRUE(purged);
    ASSERT_EQ(purged->status, 200) << purged->body;
    v1::RunStatus answer;
    ASSERT_TRUE(coordinator::web::from_json(purged->body, &answer).ok());
    EXPECT_EQ(answer.games(), 6u);
    ASSERT_EQ(answer.purges_size(), 1);
    EXPECT_EQ(answer.purges(0).worker_id(), ids[0]);
    EXPECT_EQ(answer.purges(0).games(), 4u);
    EXPECT_EQ(games(), 6u);
    v1::GetRunRequest get_run;
    get_run.set_run_id(submitted.id());
    v1::RunStatus run;
    ASSERT_TRUE(
        cluster->users()->GetRun(Cluster::context(cluster->user_token).get(), get_run, &run).ok());
    EXPECT_EQ(get(run_path), to_json(run));
    ASSERT_EQ(run.workers_size(), 1);
    EXPECT_EQ(run.workers(0).worker_id(), ids[1]);
    EXPECT_EQ(
        cluster->query("SELECT count(*) FROM purges WHERE worker_id = " + std::to_string(ids[0])),
        1);
    // The run page lists the purge, and the series no longer counts the games.
    EXPECT_NE(get("/runs/" + id).find("Purged: worker " + std::to_string(ids[0])),
              std::string::npos);
    v1::LlrHistory llr;
    ASSERT_TRUE(coordinator::web::from_json(get(run_path + "/llr"), &llr).ok());
    ASSERT_EQ(llr.workers_size(), 1);
    EXPECT_EQ(llr.workers(0).games(), 6u);
    const httplib::Result again = post(purge, body, cluster->user_token);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 409) << again->body;
    EXPECT_NE(again->body.find("ALREADY_EXISTS"), std::string::npos);
    EXPECT_EQ(games(), 6u);
}

}  // namespace
}  // namespace sparring::testing
