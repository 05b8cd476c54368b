#include "coordinator/web/dashboard.h"

#include <charconv>
#include <future>
#include <stdexcept>

#include "common/log.h"
#include "common/printable.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/web/assets.h"
#include "coordinator/web/games_export.h"
#include "coordinator/web/handlers.h"
#include "coordinator/web/json.h"
#include "coordinator/web/pages.h"
#include "coordinator/web/run_faults.h"
#include "coordinator/web/run_kinds.h"

namespace sparring::coordinator::web {

namespace {

constexpr auto kKeepAlive = std::chrono::seconds(15);
// Logins a minute: failed ones from one client address (a login names no user until its
// token is known), and all of one user's.
constexpr size_t kFailedLoginsPerAddress = 10;
constexpr size_t kLoginsPerUser = 30;
constexpr auto kLoginWindow = std::chrono::seconds(60);

// What the pages may load: the dashboard's own files; scripts from /static only, none inline
// (the plots' data are JSON blocks, which never run); inline styles, which dygraphs sets; live
// updates from the same origin. No frames, no plugins, no form sent elsewhere.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

// A REST route: the UserApi call behind it, and the request field its path capture fills.
using RestHandler =
    std::function<void(UserApi&, const Credential&, const HttpRequest&, HttpResponse&)>;

// Returns the handler of a REST route: the request comes from the URL parameters (GET) or
// the JSON body (POST), plus the path capture; the response is the message as JSON.
template <typename Request, typename Response>
RestHandler rest(UserApi::Call<Request, Response> method, const char* path_field,
                 const char* second_field = nullptr) {
    return [method, path_field, second_field](UserApi& api, const Credential& credential,
                                              const HttpRequest& http, HttpResponse& reply) {
        // The caller first: a request is parsed only for a token that may make it.
        std::promise<absl::Status> known;
        api.authenticate(credential,
                         http.method == "GET" ? std::nullopt : std::optional<Role>(Role::User),
                         [&known](absl::Status s) { known.set_value(std::move(s)); });
        absl::Status status = known.get_future().get();
        Request request;
        if (status.ok())
            status = http.method == "GET"
                         ? from_params(http.params, &request)
                         : from_json(http.body.empty() ? "{}" : http.body, &request);
        if (status.ok() && path_field)
            status = set_field(path_field, http.matches[1].str(), &request);
        if (status.ok() && second_field)
            status = set_field(second_field, http.matches[2].str(), &request);
        Response response;
        if (status.ok()) status = call(api, method, credential, request, &response);
        if (!status.ok()) return reply_error(reply, status);
        reply.set_content(to_json(response), "application/json");
    };
}

struct RestRoute {
    const char* method;
    const char* pattern;
    RestHandler handler;
};

// Returns the REST API's routes: one entry per UserService call it offers.
const std::vector<RestRoute>& rest_routes() {
    static const std::vector<RestRoute> routes = {
        {"GET", R"(/api/v1/runs)", rest(&UserApi::list_runs, nullptr)},
        {"POST", R"(/api/v1/runs)", rest(&UserApi::submit_run, nullptr)},
        {"GET", R"(/api/v1/runs/(\d+))", rest(&UserApi::get_run, "run_id")},
        {"POST", R"(/api/v1/runs/(\d+):stop)", rest(&UserApi::stop_run, "run_id")},
        {"POST", R"(/api/v1/runs/(\d+):modify)", rest(&UserApi::modify_run, "run_id")},
        {"POST", R"(/api/v1/runs/(\d+):resume)", rest(&UserApi::resume_run, "run_id")},
        {"POST", R"(/api/v1/notify)", rest(&UserApi::set_notify_url, nullptr)},
        {"POST", R"(/api/v1/runs/(\d+):purge)", rest(&UserApi::purge_worker, "run_id")},
        {"GET", R"(/api/v1/runs/(\d+)/pgn)", rest(&UserApi::export_games, "run_id")},
        {"GET", R"(/api/v1/runs/(\d+)/llr)", rest(&UserApi::get_llr_history, "run_id")},
        {"GET", R"(/api/v1/runs/(\d+)/tune-history)", rest(&UserApi::get_tune_history, "run_id")},
        {"GET", R"(/api/v1/runs/(\d+)/faults)", rest(&UserApi::list_faults, "run_id")},
        {"GET", R"(/api/v1/runs/(\d+)/faults/(\d+))", rest(&UserApi::get_fault, "run_id", "game")},
        {"GET", R"(/api/v1/workers)", rest(&UserApi::list_workers, nullptr)},
        {"GET", R"(/api/v1/versions)", rest(&UserApi::list_versions, nullptr)},
        {"POST", R"(/api/v1/versions)", rest(&UserApi::add_version, nullptr)},
        {"GET", R"(/api/v1/versions/([^/]+))", rest(&UserApi::get_version, "name")},
    };
    return routes;
}

}  // namespace

Dashboard::Dashboard(Options options, UserApi& api, std::function<std::string()> metrics)
    : options_(std::move(options)),
      api_(api),
      metrics_(std::move(metrics)),
      failed_logins_(kFailedLoginsPerAddress, kLoginWindow),
      user_logins_(kLoginsPerUser, kLoginWindow),
      // What no event carries (the workers' fits, the leases out) is read whole at most once
      // per five update intervals of a run while it changes; the rest follows the events.
      runs_([this](int64_t id, v1::RunStatus* run,
                   std::optional<v1::LlrHistory>* history) { return read_run(id, run, history); },
            5 * options_.live_interval),
      live_(
          [this](int64_t run_id) {
              bool again = false;
              std::optional<std::string> update = runs_.update(run_id, &again);
              if (again) live_.notify(run_id);  // its tables, once they are due
              return update;
          },
          options_.live_interval) {
    HttpServer::Options http;
    http.listen = options_.listen;
    http.flag = "--http-listen";
    // Live pages hold no thread: two I/O threads serve every connection, and eight run the
    // handlers, which wait for the database.
    http.io_threads = 2;
    http.threads = 8;
    http.keep_alive = std::chrono::seconds(15);
    http.request_timeout = options_.request_timeout;
    http.max_connections = options_.max_connections;
    http.max_connections_per_address = options_.max_connections_per_address;
    http.max_body_bytes = options_.max_body_bytes;
    http.tls_cert_file = options_.tls_cert_file;
    http.tls_key_file = options_.tls_key_file;
    http.headers.erase("Content-Security-Policy");
    http.headers.emplace("Content-Security-Policy", kContentSecurityPolicy);
    server_ = std::make_unique<HttpServer>(http);
    route();
}

Dashboard::~Dashboard() {
    stop();
}

int Dashboard::start() {
    return server_->start();
}

void Dashboard::stop() {
    live_.close();
    server_->stop();
}

EventBus::Subscription Dashboard::follow(EventBus& events) {
    return events.subscribe_all([this](const Event& event) {
        // The run's pages keep the event's data and the hub only marks the run, so this
        // returns at once on the bus's thread.
        const int64_t run_id = runs_.apply(event);
        if (run_id > 0) live_.notify(run_id);
    });
}

Credential Dashboard::credential(const HttpRequest& request) const {
    Credential credential;
    credential.public_queries = !options_.require_token;
    credential.peer = peer_of(request);
    const std::string header = request.get_header_value("Authorization");
    constexpr std::string_view prefix = "Bearer ";
    if (header.compare(0, prefix.size(), prefix) == 0)
        credential.token = header.substr(prefix.size());
    else if (request.method == "GET")
        // The session /login started stands in for the header on pages, never on REST
        // changes; the run page's form checks its session and CSRF secret itself.
        if (const std::optional<Session> s = session(request)) credential.token = s->token;
    return credential;
}

std::optional<Session> Dashboard::session(const HttpRequest& request) const {
    const std::string id = cookie(request, kSessionCookie);
    if (id.empty()) return std::nullopt;
    return sessions_.find(id);
}

void Dashboard::route() {
    for (const RestRoute& route : rest_routes()) {
        const RestHandler& handler = route.handler;
        auto serve = [this, &handler](const HttpRequest& request, HttpResponse& response) {
            handler(api_, credential(request), request, response);
        };
        if (std::string_view(route.method) == "GET")
            server_->get(route.pattern, serve);
        else
            server_->post(route.pattern, serve);
    }
    server_->get("/",
                 [this](const auto& request, auto& response) { runs_list(request, response); });
    server_->get(R"(/runs/(\d+))",
                 [this](const auto& request, auto& response) { run(request, response); });
    server_->get(R"(/api/v1/games\.pgn\.gz)", [this](const auto& request, auto& response) {
        serve_games_export(api_, credential(request), request, response);
    });
    server_->get(R"(/runs/(\d+)/pgn)",
                 [this](const auto& request, auto& response) { run_pgn(request, response); });
    server_->get(R"(/runs/(\d+)/faults/(\d+))",
                 [this](const auto& request, auto& response) { run_fault(request, response); });
    server_->get(R"(/runs/(\d+)/events)",
                 [this](const auto& request, auto& response) { run_events(request, response); });
    server_->get("/workers",
                 [this](const auto& request, auto& response) { workers(request, response); });
    server_->get("/versions",
                 [this](const auto& request, auto& response) { versions(request, response); });
    // Before /versions/NAME, which would take "compare" for a name.
    server_->get("/versions/compare",
                 [this](const auto& request, auto& response) { compare(request, response); });
    server_->get(R"(/versions/([^/]+))",
                 [this](const auto& request, auto& response) { version(request, response); });
    server_->get(R"(/static/([A-Za-z0-9._-]+))", [](const auto& request, auto& response) {
        const Asset* asset = find_asset(request.matches[1].str());
        if (!asset) return reply_error_page(response, absl::NotFoundError("no such file"));
        response.set_header("Cache-Control", "public, max-age=86400");
        response.set_content(std::string(asset->body),
                             std::string(asset->content_type) + "; charset=utf-8");
    });
    server_->get("/login",
                 [this](const auto& request, auto& response) { login_form(request, response); });
    server_->post("/login",
                  [this](const auto& request, auto& response) { login(request, response); });
    server_->post("/logout",
                  [this](const auto& request, auto& response) { logout(request, response); });
    server_->post(R"(/runs/(\d+)/modify)",
                  [this](const auto& request, auto& response) { modify(request, response); });
    server_->post(R"(/runs/(\d+)/again)",
                  [this](const auto& request, auto& response) { run_again(request, response); });
    if (metrics_)
        server_->get("/metrics",
                     [this](const auto& request, auto& response) { metrics(request, response); });
    server_->on_error([](const HttpRequest& request, HttpResponse& response) {
        const absl::Status status =
            response.status == 413   ? absl::ResourceExhaustedError("request body too large")
            : response.status == 404 ? absl::NotFoundError("no such page: " + request.path)
            : response.status == 405
                ? absl::UnimplementedError("method not allowed here")
                : absl::InvalidArgumentError(
                      request.method == "POST"
                          ? "bad request: a POST needs a Content-Length (curl -d '')"
                          : "bad request");
        const int code = response.status;
        if (request.path.rfind("/api/", 0) == 0)
            reply_error(response, status, code);
        else
            reply_error_page(response, status, code);
        return true;
    });
}

void Dashboard::metrics(const HttpRequest& request, HttpResponse& response) {
    if (options_.require_token && !options_.metrics_public) {
        std::promise<absl::Status> known;
        api_.authenticate(credential(request), std::nullopt,
                          [&known](absl::Status s) { known.set_value(std::move(s)); });
        if (const absl::Status status = known.get_future().get(); !status.ok()) {
            response.set_header("WWW-Authenticate", "Bearer");
            return reply_error(response, status);
        }
    }
    try {
        response.set_content(metrics_(), "text/plain; version=0.0.4; charset=utf-8");
    } catch (const std::exception& e) {
        response.status = 503;
        response.set_content(std::string("metrics unavailable: ") + e.what() + "\n", "text/plain");
    }
}

void Dashboard::runs_list(const HttpRequest& request, HttpResponse& response) {
    const RunsQuery query = parse_runs_query(request.params);
    if (!query.error.empty()) {
        response.status = 400;
        response.set_content(runs_page(v1::ListRunsResponse(), query), "text/html; charset=utf-8");
        return;
    }
    v1::ListRunsResponse runs;
    const absl::Status status =
        call(api_, &UserApi::list_runs, credential(request), runs_request(query), &runs);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_content(runs_page(runs, query), "text/html; charset=utf-8");
}

void Dashboard::run(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error_page(response, id.status());
    const Credential who = credential(request);
    v1::GetRunRequest get;
    get.set_run_id(*id);
    v1::RunStatus run;
    absl::Status status = call(api_, &UserApi::get_run, who, get, &run);
    v1::GetLlrHistoryRequest series;
    series.set_run_id(*id);
    RunExtras extras;
    if (const std::optional<Session> viewer = session(request))
        extras.viewer = Viewer{viewer->user, viewer->role == Role::Admin, viewer->csrf};
    if (status.ok()) status = call(api_, &UserApi::get_llr_history, who, series, &extras.history);
    v1::ListFaultsRequest faults;  // the faulty games (run_faults.h)
    faults.set_run_id(*id);
    faults.set_max_games(kFaultyGamesOnRunPage);
    if (status.ok()) status = call(api_, &UserApi::list_faults, who, faults, &extras.faults);
    const WebRunKind::Extra extra = web_run_kind(run.spec().kind()).extra;
    if (status.ok() && extra == WebRunKind::Extra::TuneHistory && run.tune().params_size() > 0) {
        v1::GetTuneHistoryRequest tune;
        tune.set_run_id(*id);
        status = call(api_, &UserApi::get_tune_history, who, tune, &extras.tune);
    }
    if (status.ok() && extra == WebRunKind::Extra::StartVersion && run.has_train()) {
        v1::GetVersionRequest start;
        start.set_name(run.spec().test_version());
        status = call(api_, &UserApi::get_version, who, start, &extras.start);
    }
    if (!status.ok()) return reply_error_page(response, status);
    // A page with a session's form is that session's alone.
    if (extras.viewer) response.set_header("Cache-Control", "private, no-store");
    response.set_content(run_page(run, extras), "text/html; charset=utf-8");
}

void Dashboard::run_pgn(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error_page(response, id.status());
    const Credential who = credential(request);
    v1::ExportGamesRequest page;
    page.set_run_id(*id);
    v1::ExportGamesResponse first;
    const absl::Status status = call(api_, &UserApi::export_games, who, page, &first);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_header("Content-Disposition",
                        "attachment; filename=\"run" + std::to_string(*id) + ".pgn\"");
    // The games go out a page at a time, so a large run is never held in memory whole; each
    // page is read on a handler thread when the one before has been written.
    response.set_pull(
        "application/x-chess-pgn",
        [this, who, page, next = std::optional<v1::ExportGamesResponse>(std::move(first))](
            std::string* chunk) mutable {
            while (next) {
                *chunk = std::move(*next->mutable_pgn());
                if (next->done() || next->games() == 0) {
                    next.reset();
                } else {
                    page.set_start_game(next->next_start_game());
                    v1::ExportGamesResponse more;
                    if (!call(api_, &UserApi::export_games, who, page, &more).ok()) return false;
                    next = std::move(more);
                }
                if (!chunk->empty()) return true;
            }
            return true;  // an empty chunk: the end
        });
}

void Dashboard::run_events(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error(response, id.status());
    if (live_.viewers() >= size_t(options_.max_viewers))
        return reply_error(response, absl::UnavailableError("too many live viewers"));
    // One address (or IPv6 /64) holds a few of the seats, never all: its seat is given back
    // when the stream ends, or when this answer is dropped before it opens.
    const std::string key = client_key(request.client_address);
    if (!admit_viewer(key))
        return reply_error(response,
                           absl::UnavailableError("too many live viewers from your address"));
    const std::shared_ptr<void> seat(nullptr, [this, key](void*) { leave_viewer(key); });
    v1::GetRunRequest get;
    get.set_run_id(*id);
    v1::RunStatus run;
    const absl::Status status = call(api_, &UserApi::get_run, credential(request), get, &run);
    if (!status.ok()) return reply_error(response, status);
    std::shared_ptr<LiveHub::Feed> feed = live_.join(*id);
    if (!feed) return reply_error(response, absl::UnavailableError("shutting down"));
    response.set_header("Cache-Control", "no-cache");
    // The viewer holds no thread: the hub's thread queues each update (formatted once per run,
    // shared by its viewers) on the viewer's connection, whose I/O thread writes it. Both
    // callbacks run on that connection's I/O thread, one after the other.
    auto listener = std::make_shared<uint64_t>(0);
    HttpResponse::Push push;
    push.on_open = [feed, listener](std::shared_ptr<HttpStream> stream) {
        *listener = feed->subscribe([stream](const LiveHub::Update* update) {
            if (!update) return stream->close();
            stream->write(update->data);
        });
    };
    push.on_closed = [this, feed, listener, seat, run_id = *id] {
        if (*listener) feed->unsubscribe(*listener);
        live_.leave(run_id);
        if (live_.viewers_of(run_id) == 0) runs_.forget(run_id);
    };
    push.heartbeat = ": keep-alive\n\n";
    push.heartbeat_interval = kKeepAlive;
    response.set_push("text/event-stream", std::move(push));
}

bool Dashboard::admit_viewer(const std::string& key) {
    std::lock_guard lock(viewers_mutex_);
    size_t& viewers = viewers_by_key_[key];
    if (viewers >= size_t(options_.max_viewers_per_address)) return false;
    ++viewers;
    return true;
}

void Dashboard::leave_viewer(const std::string& key) {
    std::lock_guard lock(viewers_mutex_);
    const auto it = viewers_by_key_.find(key);
    if (it != viewers_by_key_.end() && --it->second == 0) viewers_by_key_.erase(it);
}

void Dashboard::workers(const HttpRequest& request, HttpResponse& response) {
    v1::ListWorkersRequest list;
    list.set_include_inactive(request.get_param_value("all") == "true");
    v1::ListWorkersResponse workers;
    const absl::Status status =
        call(api_, &UserApi::list_workers, credential(request), list, &workers);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_content(workers_page(workers), "text/html; charset=utf-8");
}

void Dashboard::versions(const HttpRequest& request, HttpResponse& response) {
    v1::ListVersionsResponse versions;
    const absl::Status status = call(api_, &UserApi::list_versions, credential(request),
                                     v1::ListVersionsRequest{}, &versions);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_content(versions_page(versions), "text/html; charset=utf-8");
}

void Dashboard::version(const HttpRequest& request, HttpResponse& response) {
    v1::GetVersionRequest get;
    get.set_name(request.matches[1].str());
    v1::Version version;
    const absl::Status status =
        call(api_, &UserApi::get_version, credential(request), get, &version);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_content(version_page(version), "text/html; charset=utf-8");
}

void Dashboard::compare(const HttpRequest& request, HttpResponse& response) {
    const Credential who = credential(request);
    v1::Version versions[2];
    for (int i = 0; i < 2; ++i) {
        v1::GetVersionRequest get;
        get.set_name(request.get_param_value(i == 0 ? "a" : "b"));
        if (get.name().empty())
            return reply_error_page(
                response, absl::InvalidArgumentError("compare needs ?a=VERSION&b=VERSION"));
        const absl::Status status = call(api_, &UserApi::get_version, who, get, &versions[i]);
        if (!status.ok()) return reply_error_page(response, status);
    }
    response.set_content(compare_page(versions[0], versions[1]), "text/html; charset=utf-8");
}

bool Dashboard::read_run(int64_t run_id, v1::RunStatus* run,
                         std::optional<v1::LlrHistory>* history) {
    v1::GetRunRequest get;
    get.set_run_id(run_id);
    // The viewers were authorised when they joined; the hub reads on their behalf.
    const Credential hub{"", true, "live updates"};
    if (!call(api_, &UserApi::get_run, hub, get, run).ok()) return false;
    // The leases come with the plots' series, read through the same cache as the page's.
    v1::GetLlrHistoryRequest series;
    series.set_run_id(run_id);
    v1::LlrHistory read;
    if (call(api_, &UserApi::get_llr_history, hub, series, &read).ok()) *history = std::move(read);
    return true;
}

}  // namespace sparring::coordinator::web
