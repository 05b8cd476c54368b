#include "coordinator/web/handlers.h"

#include <charconv>
#include <stdexcept>

#include "common/printable.h"
#include "coordinator/web/json.h"
#include "coordinator/web/pages.h"

namespace sparring::coordinator::web {

// Returns where a request came from as gRPC names a peer ("ipv4:127.0.0.1:40000"), for logs.
std::string peer_of(const HttpRequest& request) {
    const std::string& address = request.client_address;
    if (address.empty()) return {};
    const std::string port = std::to_string(request.client_port);
    return address.find(':') == std::string::npos ? "ipv4:" + address + ":" + port
                                                  : "ipv6:[" + address + "]:" + port;
}

// Answers a request with a JSON error; code is the HTTP status when not the status's own.
void reply_error(HttpResponse& response, const absl::Status& status, int code) {
    response.status = code ? code : http_status(status.code());
    response.set_content(error_json(status, code), "application/json");
}

// Answers a page request with an error page; code as for reply_error.
void reply_error_page(HttpResponse& response, const absl::Status& status, int code) {
    response.status = code ? code : http_status(status.code());
    std::string message(status.message());
    if (status.code() == absl::StatusCode::kUnauthenticated)
        message += " — this dashboard asks for a token: log in at /login.";
    response.set_content(error_page(response.status, message), "text/html; charset=utf-8");
}

// Returns the fields of a form's body (application/x-www-form-urlencoded), decoded.
std::multimap<std::string, std::string> form_fields(const HttpRequest& request) {
    HttpRequest form;
    form.target = "/?" + request.body;
    if (!http_detail::parse_target(form)) return {};
    return form.params;
}

// Returns the first value of a form field, or nullopt.
std::optional<std::string> field(const std::multimap<std::string, std::string>& form,
                                 const std::string& name) {
    const auto it = form.find(name);
    if (it == form.end()) return std::nullopt;
    return it->second;
}

// Returns a form's whole number; INVALID_ARGUMENT naming the field for anything else.
absl::StatusOr<int64_t> form_number(const std::string& name, const std::string& text) {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return absl::InvalidArgumentError(name + " must be a whole number, not '" +
                                          printable(text, 64) + "'");
    return value;
}

// Returns the first capture of a route's pattern as a run id; INVALID_ARGUMENT if too big.
absl::StatusOr<int64_t> run_id_of(const HttpRequest& request) {
    try {
        return std::stoll(request.matches[1].str());
    } catch (const std::exception&) {
        return absl::InvalidArgumentError("run id out of range");
    }
}

// Returns the value of a cookie of a request, or an empty string.
std::string cookie(const HttpRequest& request, std::string_view name) {
    const std::string header = request.get_header_value("Cookie");
    size_t start = 0;
    while (start < header.size()) {
        size_t end = header.find(';', start);
        if (end == std::string::npos) end = header.size();
        std::string_view pair(header.data() + start, end - start);
        while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
        if (pair.substr(0, name.size()) == name && pair.size() > name.size() &&
            pair[name.size()] == '=')
            return std::string(pair.substr(name.size() + 1));
        start = end + 1;
    }
    return {};
}

}  // namespace sparring::coordinator::web
