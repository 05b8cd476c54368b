// What the dashboard's handlers (dashboard.cpp, dashboard_forms.cpp) share: calls of the user
// API from an HTTP thread, error answers, and reading forms, route captures and cookies.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/http/http_server.h"
#include "coordinator/rpc/user_api.h"

namespace sparring::coordinator::web {

// The cookie that names a dashboard session.
inline constexpr std::string_view kSessionCookie = "sparring_session";

// Returns where a request came from as gRPC names a peer ("ipv4:127.0.0.1:40000"), for logs.
std::string peer_of(const HttpRequest& request);

// Runs a UserApi call and waits for its status (HTTP threads may block; gRPC's may not).
template <typename Request, typename Response>
absl::Status call(UserApi& api, UserApi::Call<Request, Response> method,
                  const Credential& credential, const Request& request, Response* response) {
    std::promise<absl::Status> done;
    std::future<absl::Status> status = done.get_future();
    (api.*method)(credential, request, response,
                  [&done](absl::Status s) { done.set_value(std::move(s)); });
    return status.get();
}

// Answers a request with a JSON error; code is the HTTP status when not the status's own.
void reply_error(HttpResponse& response, const absl::Status& status, int code = 0);
// Answers a page request with an error page; code as for reply_error.
void reply_error_page(HttpResponse& response, const absl::Status& status, int code = 0);
// Returns the fields of a form's body (application/x-www-form-urlencoded), decoded.
std::multimap<std::string, std::string> form_fields(const HttpRequest& request);
// Returns the first value of a form field, or nullopt.
std::optional<std::string> field(const std::multimap<std::string, std::string>& form,
                                 const std::string& name);
// Returns a form's whole number; INVALID_ARGUMENT naming the field for anything else.
absl::StatusOr<int64_t> form_number(const std::string& name, const std::string& text);
// Returns the first capture of a route's pattern as a run id; INVALID_ARGUMENT if too big.
absl::StatusOr<int64_t> run_id_of(const HttpRequest& request);
// Returns the value of a cookie of a request, or an empty string.
std::string cookie(const HttpRequest& request, std::string_view name);

}  // namespace sparring::coordinator::web
