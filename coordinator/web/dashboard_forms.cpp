// The dashboard's forms: logging in and out, and a run's page changing the run (run again,
// modify), each with its session's CSRF secret.
#include "common/log.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/web/dashboard.h"
#include "coordinator/web/handlers.h"
#include "coordinator/web/json.h"
#include "coordinator/web/pages.h"

namespace sparring::coordinator::web {

void Dashboard::login_form(const HttpRequest& request, HttpResponse& response) {
    const std::optional<Session> current = session(request);
    std::string note;
    if (!request.get_param_value("token").empty()) {
        // An old bookmark: the token is in the URL (and so in logs) already; it is not used.
        response.status = 400;
        note =
            "A token does not go in a URL, where logs and the browser's history keep it: paste "
            "it below. Consider revoking the one you sent (sparring-coordinator token revoke).";
    }
    response.set_header("Cache-Control", "no-store");
    response.set_content(
        login_page(note, current ? current->user : "", current ? current->csrf : ""),
        "text/html; charset=utf-8");
}

void Dashboard::login(const HttpRequest& request, HttpResponse& response) {
    response.set_header("Cache-Control", "no-store");
    const std::string peer = peer_of(request);
    // Refuses the login (429 or 503) with its log line.
    const auto refuse = [&](int status, const std::string& why, const std::string& user,
                            std::chrono::seconds wait) {
        log_event(LogLevel::Warn, "login_refused", {{"user", user}, {"peer", peer}, {"why", why}});
        response.status = status;
        if (wait.count() > 0) response.set_header("Retry-After", std::to_string(wait.count()));
        response.set_content(login_page(why, "", ""), "text/html; charset=utf-8");
    };
    // An address that failed too often is refused before its token is looked at.
    const std::string address = client_key(request.client_address);
    if (const std::chrono::seconds wait = failed_logins_.wait(address); wait.count() > 0)
        return refuse(429,
                      "too many failed logins from your address: try again in " +
                          std::to_string(wait.count()) + " s",
                      "", wait);
    const std::optional<std::string> token = field(form_fields(request), "token");
    std::promise<absl::StatusOr<Caller>> known;
    api_.identify(token.value_or(""),
                  [&known](absl::StatusOr<Caller> caller) { known.set_value(std::move(caller)); });
    const absl::StatusOr<Caller> caller = known.get_future().get();
    if (!caller.ok()) {
        const absl::StatusCode code = caller.status().code();
        if (code == absl::StatusCode::kUnauthenticated ||
            code == absl::StatusCode::kPermissionDenied)
            failed_logins_.count(address);
        log_event(LogLevel::Warn, "login_failed",
                  {{"peer", peer}, {"why", std::string(caller.status().message())}});
        response.status = http_status(code);
        response.set_content(login_page(std::string(caller.status().message()), "", ""),
                             "text/html; charset=utf-8");
        return;
    }
    if (const std::chrono::seconds wait = user_logins_.wait(caller->user); wait.count() > 0)
        return refuse(429,
                      "too many logins of " + caller->user + " this minute: try again in " +
                          std::to_string(wait.count()) + " s",
                      caller->user, wait);
    user_logins_.count(caller->user);
    const std::optional<std::string> id =
        sessions_.start(Session{*token, caller->user, caller->role, random_secret()});
    if (!id)
        return refuse(503, "too many dashboard sessions are open: try again later", caller->user,
                      std::chrono::seconds(0));
    log_event(
        LogLevel::Info, "login",
        {{"user", caller->user}, {"role", std::string(role_name(caller->role))}, {"peer", peer}});
    std::string cookie_text = std::string(kSessionCookie) + "=" + *id +
                              "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" +
                              std::to_string(std::chrono::seconds(Sessions::kLife).count());
    if (!options_.tls_cert_file.empty()) cookie_text += "; Secure";
    response.set_header("Set-Cookie", cookie_text);
    response.status = 303;
    response.set_header("Location", "/");
}

void Dashboard::logout(const HttpRequest& request, HttpResponse& response) {
    const std::optional<Session> current = session(request);
    if (current && !same_secret(field(form_fields(request), "csrf").value_or(""), current->csrf))
        return reply_error_page(
            response, absl::PermissionDeniedError("the form's CSRF check failed: reload the page"));
    if (current) {
        sessions_.end(cookie(request, kSessionCookie));
        log_event(LogLevel::Info, "logout", {{"user", current->user}, {"peer", peer_of(request)}});
    }
    response.set_header("Set-Cookie", std::string(kSessionCookie) +
                                          "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    response.status = 303;
    response.set_header("Location", "/");
}

absl::StatusOr<Credential> Dashboard::form_credential(
    const HttpRequest& request, const std::multimap<std::string, std::string>& form) const {
    // The session and its CSRF secret before anything else of the form is looked at.
    const std::optional<Session> current = session(request);
    if (!current) return absl::UnauthenticatedError("log in first, at /login");
    if (!same_secret(field(form, "csrf").value_or(""), current->csrf))
        return absl::PermissionDeniedError(
            "the form's CSRF check failed: reload the run page and try again");
    return Credential{current->token, false, peer_of(request)};
}

void Dashboard::run_again(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error_page(response, id.status());
    const absl::StatusOr<Credential> who = form_credential(request, form_fields(request));
    if (!who.ok()) return reply_error_page(response, who.status());
    v1::SubmitRunRequest submit;
    submit.set_like(*id);
    v1::RunStatus made;
    if (absl::Status status = call(api_, &UserApi::submit_run, *who, submit, &made); !status.ok())
        return reply_error_page(response, status);
    response.status = 303;
    response.set_header("Location", "/runs/" + std::to_string(made.id()));
}

void Dashboard::modify(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error_page(response, id.status());
    const std::multimap<std::string, std::string> form = form_fields(request);
    const absl::StatusOr<Credential> checked = form_credential(request, form);
    if (!checked.ok()) return reply_error_page(response, checked.status());
    const Credential& who = *checked;
    v1::GetRunRequest get;
    get.set_run_id(*id);
    v1::RunStatus run;
    if (absl::Status status = call(api_, &UserApi::get_run, who, get, &run); !status.ok())
        return reply_error_page(response, status);
    // Only what the form changed: a field it shows unchanged is not a change.
    v1::ModifyRunRequest change;
    change.set_run_id(*id);
    const auto number = [&form](const char* name) -> absl::StatusOr<std::optional<int64_t>> {
        const std::optional<std::string> text = field(form, name);
        if (!text || text->empty()) return std::nullopt;
        absl::StatusOr<int64_t> value = form_number(name, *text);
        if (!value.ok()) return value.status();
        return std::optional<int64_t>(*value);
    };
    absl::StatusOr<std::optional<int64_t>> priority = number("priority");
    absl::StatusOr<std::optional<int64_t>> throughput = number("throughput");
    absl::StatusOr<std::optional<int64_t>> games = number("games");
    for (const auto* value : {&priority, &throughput, &games})
        if (!value->ok()) return reply_error_page(response, value->status());
    if (*priority && **priority != run.spec().priority()) {
        // The full range here, for the int32 of the request; the core holds a user to theirs.
        if (absl::Status status = check_priority(**priority, Role::Admin); !status.ok())
            return reply_error_page(response, status);
        change.set_priority(int32_t(**priority));
    }
    if (*throughput && **throughput != int64_t(run.spec().throughput())) {
        if (absl::Status status = check_throughput(**throughput); !status.ok())
            return reply_error_page(response, status);
        change.set_throughput(uint32_t(**throughput));
    }
    if (*games && **games != int64_t(run.spec().games())) {
        if (**games < 0)
            return reply_error_page(response, absl::InvalidArgumentError("games must be positive"));
        change.set_games(uint64_t(**games));
    }
    if (const std::optional<std::string> description = field(form, "description");
        description && *description != run.spec().description())
        change.set_description(*description);
    if (change.has_priority() || change.has_throughput() || change.has_games() ||
        change.has_description()) {
        v1::RunStatus changed;
        if (absl::Status status = call(api_, &UserApi::modify_run, who, change, &changed);
            !status.ok())
            return reply_error_page(response, status);
    }
    response.status = 303;
    response.set_header("Location", "/runs/" + std::to_string(*id));
}

}  // namespace sparring::coordinator::web
