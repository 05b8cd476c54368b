// The dashboard on the coordinator's HTTP server (HttpServer): its pages, its static files,
// live updates of run pages (server-sent events), the REST API /api/v1 and, when given,
// /metrics — all over the same UserApi as the gRPC UserService.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coordinator/domain/events.h"
#include "coordinator/domain/rate_limit.h"
#include "coordinator/http/http_server.h"
#include "coordinator/rpc/user_api.h"
#include "coordinator/web/live.h"
#include "coordinator/web/live_runs.h"
#include "coordinator/web/sessions.h"

namespace sparring::coordinator::web {

class Dashboard {
  public:
    struct Options {
        std::string listen;           // HOST:PORT; port 0 picks a free port
        bool require_token = false;   // pages and queries need a token too
        bool metrics_public = false;  // with require_token, /metrics still needs none
        std::string tls_cert_file;    // with tls_key_file: serve HTTPS
        std::string tls_key_file;
        size_t max_body_bytes = 1 << 20;   // larger request bodies get 413
        int max_viewers = 500;             // live pages watched at once; more get 503
        int max_viewers_per_address = 50;  // and from one client address (an IPv6 /64)
        // Open connections at most, overall and from one client address (HttpServer::Options).
        size_t max_connections = 4096;
        size_t max_connections_per_address = 256;
        // A request's head and body are read within this from its first byte, or the
        // connection is closed.
        std::chrono::seconds request_timeout{30};
        // A run's viewers get at most one update per interval. Under load, 200 viewers raised
        // the report p99 by 9-15% with 4 updates a second, by 3-8% with one (BENCHMARKS.md).
        std::chrono::milliseconds live_interval{1000};
    };

    // Serves the API; metrics, when set, renders the Prometheus text of /metrics.
    Dashboard(Options options, UserApi& api, std::function<std::string()> metrics);
    ~Dashboard();

    // Binds and starts serving on threads of its own; returns the port. Throws
    // std::runtime_error if it cannot listen.
    int start();
    // Stops serving: ends live pages, finishes requests in flight.
    void stop();
    // Subscribes the live pages to the events that change a run (progress, end, leases,
    // epochs); the pages of a run are updated from the events' data (LiveRuns).
    [[nodiscard]] EventBus::Subscription follow(EventBus& events);
    // The server, for routes the composition root adds beside the dashboard's before start()
    // (the engine files, coordinator/engine_files.h).
    HttpServer& http_server() { return *server_; }

  private:
    // Registers every route on the server.
    void route();
    // Returns the caller of a request: its bearer token (header or cookie) and whether
    // queries may go without one.
    Credential credential(const HttpRequest& request) const;
    // Answers a page request from the runs list, a run page or its games.
    void runs_list(const HttpRequest& request, HttpResponse& response);
    void run(const HttpRequest& request, HttpResponse& response);
    void run_pgn(const HttpRequest& request, HttpResponse& response);
    void run_events(const HttpRequest& request, HttpResponse& response);
    // Answers a faulty game's evidence page (run_faults.cpp).
    void run_fault(const HttpRequest& request, HttpResponse& response);
    // Answers the workers list, the versions list, a version and a comparison of two.
    void workers(const HttpRequest& request, HttpResponse& response);
    void versions(const HttpRequest& request, HttpResponse& response);
    void version(const HttpRequest& request, HttpResponse& response);
    void compare(const HttpRequest& request, HttpResponse& response);
    // Reads a run whole through the API for its live pages (LiveRuns::Reader): what no
    // event carries, at a bounded rate.
    bool read_run(int64_t run_id, v1::RunStatus* run, std::optional<v1::LlrHistory>* history);
    // Returns the browser session of a request's cookie.
    std::optional<Session> session(const HttpRequest& request) const;
    // The login form (GET), a login (POST: the token in the body), a logout (POST, CSRF).
    void login_form(const HttpRequest& request, HttpResponse& response);
    void login(const HttpRequest& request, HttpResponse& response);
    void logout(const HttpRequest& request, HttpResponse& response);
    // The run page's form changing a run (POST, CSRF): only the fields the form changed.
    void modify(const HttpRequest& request, HttpResponse& response);
    // The run page's "Run again" button (POST, CSRF): submits a run like the page's run.
    void run_again(const HttpRequest& request, HttpResponse& response);
    // Returns the credential of a form's session, once the form's CSRF secret is checked.
    absl::StatusOr<Credential> form_credential(
        const HttpRequest& request, const std::multimap<std::string, std::string>& form) const;
    // Answers /metrics: under require_token, for a token only, unless metrics_public.
    void metrics(const HttpRequest& request, HttpResponse& response);
    // Counts a live viewer from a client key, unless the key has its maximum; returns whether
    // it did. leave_viewer counts it out.
    bool admit_viewer(const std::string& key);
    void leave_viewer(const std::string& key);

    Options options_;
    UserApi& api_;
    std::function<std::string()> metrics_;
    Sessions sessions_;
    RateLimit failed_logins_;  // per client key
    RateLimit user_logins_;    // per user
    std::mutex viewers_mutex_;
    std::map<std::string, size_t> viewers_by_key_;
    LiveRuns runs_;  // before live_, whose thread reads it
    LiveHub live_;
    std::unique_ptr<HttpServer> server_;
};

}  // namespace sparring::coordinator::web
