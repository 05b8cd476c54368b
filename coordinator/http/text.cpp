// The HTTP server's text: header names, a request's target (percent-decoded path and query),
// the listen address, and what goes on the wire around a response's head and chunks.
#include "coordinator/http/text.h"

#include <strings.h>

#include <charconv>
#include <optional>
#include <stdexcept>

#include "coordinator/http/http_server.h"

namespace sparring::coordinator {

bool HeaderNameLess::operator()(const std::string& a, const std::string& b) const {
    return strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string HttpRequest::get_header_value(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::get_param_value(const std::string& name) const {
    const auto it = params.find(name);
    return it == params.end() ? std::string() : it->second;
}

namespace http_detail {

// Splits "HOST:PORT" (or "[V6]:PORT"); throws std::runtime_error unless the port is a number.
std::pair<std::string, int> split_address(const std::string& listen, const std::string& flag) {
    const size_t colon = listen.rfind(':');
    const std::string error = flag + " needs HOST:PORT, not '" + listen + "'";
    if (colon == std::string::npos) throw std::runtime_error(error);
    int port = -1;
    const char* end = listen.data() + listen.size();
    const auto [p, ec] = std::from_chars(listen.data() + colon + 1, end, port);
    if (ec != std::errc() || p != end || port < 0 || port > 65535) throw std::runtime_error(error);
    std::string host = listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    // An empty host means every interface, as for the gRPC port.
    return {host.empty() ? "0.0.0.0" : host, port};
}

// Decodes %XX escapes (and '+' as a space when plus_is_space); nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size()) return std::nullopt;
            unsigned value = 0;
            const auto [p, ec] =
                std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
            if (ec != std::errc() || p != text.data() + i + 3) return std::nullopt;
            out += char(value);
            i += 2;
        } else {
            out += plus_is_space && c == '+' ? ' ' : c;
        }
    }
    return out;
}

// Fills a request's path and params from its target; false if it is malformed.
bool parse_target(HttpRequest& request) {
    const std::string_view target = request.target;
    const size_t question = target.find('?');
    const auto path = percent_decode(target.substr(0, question), false);
    if (!path || path->empty() || path->front() != '/') return false;
    request.path = *path;
    if (question == std::string_view::npos) return true;
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        const size_t equals = pair.find('=');
        const auto name = percent_decode(pair.substr(0, equals), true);
        const auto value = percent_decode(
            equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1), true);
        if (!name || !value) return false;
        request.params.emplace(*name, *value);
    }
    return true;
}

// A header value goes out on one line: CR and LF are dropped, so no handler can split the head.
std::string one_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text)
        if (c != '\r' && c != '\n') out += c;
    return out;
}

// Frames a chunk of a chunked body.
std::string chunk_frame(std::string_view data) {
    char size[20];
    const auto [end, ec] = std::to_chars(size, size + sizeof size, data.size(), 16);
    std::string out(size, end);
    out.reserve(out.size() + data.size() + 4);
    out.append("\r\n").append(data).append("\r\n");
    return out;
}

}  // namespace http_detail

}  // namespace sparring::coordinator
