// The dashboard's findings of issue 49, each against a real coordinator over HTTP on loopback
// addresses (127.0.0.1, and 127.0.0.2 and 127.0.0.3 as other clients): sessions counted per
// user, login limits and log lines, live viewers capped per address, the client's address in
// the log and the stored changes, the security headers, /metrics behind the token, bad dates
// on the runs page, and the code of a 413.
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster.h"
#include "loopback.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

// Sends a request on a connected socket and returns what comes back within `limit`: up to the
// end of the head when `head_only` (a stream's answer), else until the server closes.
std::string exchange(int fd, const std::string& request, bool head_only,
                     std::chrono::milliseconds limit = 5000ms) {
    if (fd < 0) return {};
    for (size_t sent = 0; sent < request.size();) {
        const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return {};
        sent += size_t(n);
    }
    std::string answer;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        if (head_only && answer.find("\r\n\r\n") != std::string::npos) break;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) continue;
        const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        answer.append(buffer, size_t(n));
    }
    return answer;
}

// Returns the status code of a raw answer ("HTTP/1.1 503 ..." gives 503), 0 for none.
int status_of(const std::string& answer) {
    if (answer.size() < 12 || answer.rfind("HTTP/1.1 ", 0) != 0) return 0;
    return std::stoi(answer.substr(9, 3));
}

// Returns the lines of a file that hold every one of the texts.
size_t lines_with(const std::string& path, const std::vector<std::string>& texts) {
    std::istringstream log(slurp(path));
    size_t n = 0;
    for (std::string line; std::getline(log, line);) {
        bool all = true;
        for (const std::string& text : texts) all = all && line.find(text) != std::string::npos;
        n += all;
    }
    return n;
}

class WebSecurityTest : public ::testing::Test {
  protected:
    void SetUp() override { std::signal(SIGPIPE, SIG_IGN); }

    // Starts a coordinator serving the dashboard with extra flags, and its named tokens.
    void start(std::vector<std::string> flags = {}) {
        port_file = ::testing::TempDir() + "sparring-websec-" + std::to_string(getpid()) + ".port";
        std::filesystem::remove(port_file);
        flags.insert(flags.begin(),
                     {"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
        cluster = std::make_unique<Cluster>(flags);
        wait_until([&] { return std::filesystem::exists(port_file); }, 5s, 10ms);
        std::ifstream in(port_file);
        in >> port;
        ASSERT_GT(port, 0);
        http = std::make_unique<httplib::Client>("127.0.0.1", port);
        http->set_read_timeout(10s);
        http->set_keep_alive(true);
        http->set_tcp_nodelay(true);
        alice = cluster->create_token("user", "alice");
        root = cluster->create_token("admin", "root");
    }

    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
        std::filesystem::remove(port_file);
    }

    std::string log() const { return cluster->dir + "/coordinator-1.log"; }

    // Submits a fixed-games run of a against b as alice; returns its id.
    int64_t submit() {
        cluster->add_version("a");
        cluster->add_version("b");
        v1::SubmitRunRequest request;
        *request.mutable_spec() = fixed_games_spec(100);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->SubmitRun(Cluster::context(alice).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run.id();
    }

    // Logs in with a token; returns the answer.
    httplib::Result login(const std::string& token) {
        return http->Post("/login", httplib::Params{{"token", token}});
    }

    // Returns the session cookie ("sparring_session=...") an answer sets, or "".
    static std::string cookie_of(const httplib::Result& answer) {
        if (!answer || !answer->has_header("Set-Cookie")) return {};
        const std::string set = answer->get_header_value("Set-Cookie");
        return set.substr(0, set.find(';'));
    }

    // Returns whether a session cookie is live: /login then says who is logged in.
    bool live(const std::string& cookie, const std::string& user) {
        const httplib::Result page = http->Get("/login", httplib::Headers{{"Cookie", cookie}});
        return page && page->body.find("Logged in as " + user) != std::string::npos;
    }

    // Sends a request from a loopback address over a fresh connection; returns the answer.
    std::string from(const char* source, const std::string& request, bool head_only = false) {
        const int fd = connect_to(port, source);
        EXPECT_GE(fd, 0) << "cannot connect from " << source;
        const std::string answer = exchange(fd, request, head_only);
        if (fd >= 0) close(fd);
        return answer;
    }

    std::string port_file;
    int port = 0;
    std::unique_ptr<Cluster> cluster;
    std::unique_ptr<httplib::Client> http;
    std::string alice, root;
};

// Issue 49, item 7: a user who logs in 10,000 times ended every session, the admin's included.
// Now a user's logins end only that user's own oldest sessions (20 are kept), and past 30
// logins a minute the user is refused (429) without a session.
TEST_F(WebSecurityTest, TenThousandLoginsOfOneUserEndNoOtherUsersSession) {
    start();
    const std::string admin = cookie_of(login(root));
    ASSERT_FALSE(admin.empty());
    std::vector<std::string> mine;
    size_t refused = 0;
    for (int i = 0; i < 10'000; ++i) {
        const httplib::Result in = login(alice);
        ASSERT_TRUE(in);
        if (in->status == 303) {
            mine.push_back(cookie_of(in));
        } else {
            ASSERT_EQ(in->status, 429) << in->body;
            EXPECT_FALSE(in->has_header("Set-Cookie"));
            EXPECT_TRUE(in->has_header("Retry-After"));
            ++refused;
        }
    }
    EXPECT_EQ(mine.size(), 30u);
    EXPECT_EQ(refused, 10'000u - 30u);
    EXPECT_TRUE(live(admin, "root")) << "alice's logins ended the admin's session";
    // Alice's 20 newest sessions live; her 10 oldest made room for them.
    for (size_t i = 0; i < mine.size(); ++i)
        EXPECT_EQ(live(mine[i], "alice"), i >= 10) << "session " << i;
    // One line per login, with who and from where.
    EXPECT_EQ(lines_with(log(), {"event=login ", "user=alice", "peer=ipv4:127.0.0.1:"}), 30u);
    EXPECT_EQ(lines_with(log(), {"event=login ", "user=root", "role=admin"}), 1u);
    EXPECT_EQ(lines_with(log(), {"event=login_refused", "user=alice", "peer=ipv4:127.0.0.1:"}),
              refused);
}

// Item 7: logins were neither rate-limited nor logged. Ten failed logins from an address in a
// minute refuse that address's next login, a good token's included (429), before the token is
// looked at; another address logs in as before. Every attempt has its log line.
TEST_F(WebSecurityTest, TenFailedLoginsFromAnAddressRefuseItsLoginsAndEachIsLogged) {
    start();
    const std::string wrong = "spu_" + std::string(64, '0');
    for (int i = 0; i < 10; ++i) {
        const httplib::Result in = login(i % 2 ? wrong : "not a token");
        ASSERT_TRUE(in);
        EXPECT_EQ(in->status, 401) << in->body;
    }
    const httplib::Result blocked = login(alice);
    ASSERT_TRUE(blocked);
    EXPECT_EQ(blocked->status, 429) << blocked->body;
    EXPECT_NE(blocked->body.find("too many failed logins"), std::string::npos) << blocked->body;
    EXPECT_FALSE(blocked->has_header("Set-Cookie"));
    const int retry = std::stoi(blocked->get_header_value("Retry-After"));
    EXPECT_GT(retry, 0);
    EXPECT_LE(retry, 60);

    const std::string body = "token=" + alice;
    const std::string other =
        from("127.0.0.2",
             "POST /login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
             "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
                 std::to_string(body.size()) + "\r\n\r\n" + body);
    EXPECT_EQ(status_of(other), 303) << other.substr(0, 300);
    EXPECT_NE(other.find("Set-Cookie: sparring_session="), std::string::npos);

    EXPECT_EQ(lines_with(log(), {"event=login_failed", "peer=ipv4:127.0.0.1:"}), 10u);
    EXPECT_EQ(lines_with(log(), {"event=login_refused", "peer=ipv4:127.0.0.1:", "failed logins"}),
              1u);
    EXPECT_EQ(lines_with(log(), {"event=login ", "user=alice", "peer=ipv4:127.0.0.2:"}), 1u);
    EXPECT_EQ(count_in(log(), alice.substr(4)), 0u) << "a token reached the log";
}

// Item 7: 500 anonymous live viewers from two addresses took every seat and gave everyone
// else 503. Now one address holds 50 at most (--http-max-viewers-per-address), and a seat
// comes back when its viewer leaves.
TEST_F(WebSecurityTest, TwoAddressesCannotTakeEveryLiveViewersSeat) {
    start();
    const int64_t run = submit();
    const std::string request =
        "GET /runs/" + std::to_string(run) + "/events HTTP/1.1\r\nHost: x\r\n\r\n";
    std::map<std::string, std::vector<int>> open;
    std::map<std::string, std::map<int, int>> statuses;
    for (int i = 0; i < 250; ++i)
        for (const char* source : {"127.0.0.2", "127.0.0.3"}) {
            const int fd = connect_to(port, source);
            ASSERT_GE(fd, 0);
            const int status = status_of(exchange(fd, request, true));
            ++statuses[source][status];
            if (status == 200)
                open[source].push_back(fd);
            else
                close(fd);
        }
    for (const char* source : {"127.0.0.2", "127.0.0.3"}) {
        EXPECT_EQ(statuses[source][200], 50) << source;
        EXPECT_EQ(statuses[source][503], 200) << source;
    }
    // Everybody else still watches.
    const std::string mine = from("127.0.0.1", request, true);
    EXPECT_EQ(status_of(mine), 200) << mine.substr(0, 300);
    EXPECT_NE(from("127.0.0.4", request, true).find("text/event-stream"), std::string::npos);
    // The seats of 127.0.0.2 come back when its viewers leave.
    for (const int fd : open["127.0.0.2"]) close(fd);
    EXPECT_TRUE(
        wait_until([&] { return status_of(from("127.0.0.2", request, true)) == 200; }, 5s, 50ms));
    for (const int fd : open["127.0.0.3"]) close(fd);
}

// Item 7: changes made over REST and through the dashboard's form were logged with an empty
// peer. Now the client's address is in the log line of a stop and a change, and in a stored
// purge.
TEST_F(WebSecurityTest, ChangesOverRestAndTheFormCarryTheClientsAddress) {
    start();
    const int64_t run = submit();
    const std::string id = std::to_string(run);
    auto workers = cluster->workers();
    const int64_t worker = register_worker(*workers, cluster->worker_token);
    ASSERT_NE(worker, 0);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*workers, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const httplib::Headers bearer = {{"Authorization", "Bearer " + alice}};

    const httplib::Result modified = http->Post(("/api/v1/runs/" + id + ":modify").c_str(), bearer,
                                                R"({"priority": 3})", "application/json");
    ASSERT_TRUE(modified);
    EXPECT_EQ(modified->status, 200) << modified->body;
    EXPECT_EQ(lines_with(log(), {"event=run_modified", "run=" + id, "user=alice",
                                 "peer=ipv4:127.0.0.1:", "field=priority"}),
              1u);

    // The run page's form, from another address.
    const std::string cookie = cookie_of(login(alice));
    ASSERT_FALSE(cookie.empty());
    const httplib::Result page = http->Get(("/runs/" + id).c_str(), {{"Cookie", cookie}});
    const std::string marker = "name=\"csrf\" value=\"";
    const size_t at = page->body.find(marker);
    ASSERT_NE(at, std::string::npos);
    const std::string form = "csrf=" + page->body.substr(at + marker.size(), 64) + "&priority=5";
    const std::string sent = from(
        "127.0.0.2", "POST /runs/" + id + "/modify HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                         "Cookie: " + cookie +
                         "\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                         "Content-Length: " +
                         std::to_string(form.size()) + "\r\n\r\n" + form);
    EXPECT_EQ(status_of(sent), 303) << sent.substr(0, 400);
    EXPECT_EQ(lines_with(log(), {"event=run_modified", "run=" + id,
                                 "peer=ipv4:127.0.0.2:", "field=priority", "new=5"}),
              1u);

    const std::string purge = R"({"worker_id": )" + std::to_string(worker) + "}";
    const httplib::Result purged =
        http->Post(("/api/v1/runs/" + id + ":purge").c_str(), bearer, purge, "application/json");
    ASSERT_TRUE(purged);
    EXPECT_EQ(purged->status, 200) << purged->body;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM purges WHERE peer LIKE 'ipv4:127.0.0.1:%'"), 1);

    const httplib::Result stopped =
        http->Post(("/api/v1/runs/" + id + ":stop").c_str(), bearer, "", "application/json");
    ASSERT_TRUE(stopped);
    EXPECT_EQ(stopped->status, 200) << stopped->body;
    EXPECT_EQ(lines_with(log(), {"event=run_stop_requested", "run=" + id,
                                 "peer=ipv4:127.0.0.1:", "user=alice"}),
              1u);
}

// Item 7: no X-Content-Type-Options, Content-Security-Policy or X-Frame-Options. Now every
// answer has them — pages, REST, files, errors, streams, and a 413 refused before its body —
// and the pages run no inline script, so the policy leaves their plots and live updates working
// (the browser test draws them under it).
TEST_F(WebSecurityTest, EveryAnswerCarriesTheSecurityHeaders) {
    start();
    const int64_t run = submit();
    const std::string id = std::to_string(run);
    const auto expect_headers = [](const std::string& answer, const std::string& what) {
        EXPECT_NE(answer.find("X-Content-Type-Options: nosniff\r\n"), std::string::npos) << what;
        EXPECT_NE(answer.find("X-Frame-Options: DENY\r\n"), std::string::npos) << what;
        EXPECT_NE(answer.find("Content-Security-Policy: default-src 'self'; script-src 'self'; "),
                  std::string::npos)
            << what;
        EXPECT_NE(answer.find("frame-ancestors 'none'"), std::string::npos) << what;
    };
    for (const std::string& path : std::vector<std::string>{
             "/", "/runs/" + id, "/api/v1/runs", "/api/v1/runs/999", "/static/dashboard.js",
             "/static/dygraph.min.js", "/metrics", "/nowhere", "/login", "/workers", "/?since=x"}) {
        const std::string answer =
            from("127.0.0.1", "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        EXPECT_NE(status_of(answer), 0) << path;
        expect_headers(answer, path);
    }
    expect_headers(
        from("127.0.0.1", "GET /runs/" + id + "/events HTTP/1.1\r\nHost: x\r\n\r\n", true),
        "live stream");
    const std::string too_large = from(
        "127.0.0.1", "POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999\r\n\r\n");
    EXPECT_EQ(status_of(too_large), 413);
    expect_headers(too_large, "413");
    // Every script of a page is a file of /static or JSON data, never inline code.
    for (const std::string& path :
         std::vector<std::string>{"/", "/runs/" + id, "/versions", "/login"}) {
        const httplib::Result page = http->Get(path.c_str());
        ASSERT_TRUE(page);
        for (size_t at = page->body.find("<script"); at != std::string::npos;
             at = page->body.find("<script", at + 1)) {
            const std::string tag = page->body.substr(at, page->body.find('>', at) - at);
            EXPECT_TRUE(tag.find(" src=\"/static/") != std::string::npos ||
                        tag.find("type=\"application/json\"") != std::string::npos)
                << path << ": " << tag;
        }
        EXPECT_EQ(page->body.find(" onclick="), std::string::npos) << path;
        EXPECT_EQ(page->body.find("javascript:"), std::string::npos) << path;
    }
}

// Item 7: under --http-require-token, /metrics (whose labels name runs, versions and Elo)
// answered anybody. Now it needs a token like the pages, unless --metrics-public; /static/*
// stays public (the dashboard's own script and style sheet, no data).
TEST_F(WebSecurityTest, MetricsNeedATokenUnderRequireTokenUnlessMetricsPublic) {
    start({"--http-require-token"});
    const httplib::Result anonymous = http->Get("/metrics");
    ASSERT_TRUE(anonymous);
    EXPECT_EQ(anonymous->status, 401) << anonymous->body;
    EXPECT_EQ(anonymous->body.find("sparring_"), std::string::npos);
    const httplib::Result forged =
        http->Get("/metrics", {{"Authorization", "Bearer spu_" + std::string(64, '1')}});
    EXPECT_EQ(forged->status, 401);
    for (const std::string& token : {alice, cluster->worker_token}) {
        const httplib::Result scraped =
            http->Get("/metrics", {{"Authorization", "Bearer " + token}});
        ASSERT_TRUE(scraped);
        EXPECT_EQ(scraped->status, 200);
        EXPECT_NE(scraped->body.find("sparring_"), std::string::npos);
    }
    EXPECT_EQ(http->Get("/static/dashboard.js")->status, 200);
    EXPECT_EQ(http->Get("/")->status, 401);

    cluster.reset();
    start({"--http-require-token", "--metrics-public"});
    const httplib::Result open = http->Get("/metrics");
    ASSERT_TRUE(open);
    EXPECT_EQ(open->status, 200);
    EXPECT_NE(open->body.find("sparring_"), std::string::npos);
    EXPECT_EQ(http->Get("/")->status, 401);
}

// Item 7: bad since/until dates on the runs page were ignored silently, listing every run.
// Now the page answers 400 with the message, as REST and the CLI refuse them; good dates list.
TEST_F(WebSecurityTest, BadDatesOnTheRunsPageAreRefusedWithAMessage) {
    start();
    submit();
    for (const char* query :
         {"/?since=2026-13-45", "/?until=yesterday", "/?since=2026-12-01&until=x"}) {
        const httplib::Result page = http->Get(query);
        ASSERT_TRUE(page);
        EXPECT_EQ(page->status, 400) << query;
        EXPECT_NE(page->body.find("takes a date as YYYY-MM-DD (UTC)"), std::string::npos)
            << query << page->body;
        EXPECT_EQ(page->body.find("/runs/1\""), std::string::npos) << query << ": lists runs";
        EXPECT_NE(page->body.find("name=\"since\""), std::string::npos) << "no filters to fix";
    }
    EXPECT_EQ(http->Get("/api/v1/runs?created_from_unix_ms=yesterday")->status, 400);
    const httplib::Result good = http->Get("/?since=2000-01-01&until=9999-12-31");
    ASSERT_TRUE(good);
    EXPECT_EQ(good->status, 200);
    EXPECT_NE(good->body.find("/runs/1\""), std::string::npos);
}

// Item 7: a 413 answer said "code":429 in its JSON. Now the code is the answer's own.
TEST_F(WebSecurityTest, ABodyTooLargeIsAnsweredWithCode413) {
    start();
    const httplib::Result refused =
        http->Post("/api/v1/runs", {{"Authorization", "Bearer " + alice}},
                   std::string(2 << 20, ' '), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 413);
    EXPECT_NE(refused->body.find("\"code\":413"), std::string::npos) << refused->body;
    EXPECT_NE(refused->body.find("\"status\":\"RESOURCE_EXHAUSTED\""), std::string::npos);
    const std::string page =
        from("127.0.0.1", "POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n");
    EXPECT_EQ(status_of(page), 413);
    const std::string body = page.substr(std::min(page.size(), page.find("\r\n\r\n")));
    EXPECT_NE(body.find("413"), std::string::npos) << body;
    EXPECT_EQ(body.find("429"), std::string::npos) << body;
}

}  // namespace
}  // namespace sparring::testing
