#include "coordinator/web/html.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace sparring::coordinator::web {

std::string escape_html(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string escape_url(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += c;
        } else {
            out += '%';
            out += kHex[u >> 4];
            out += kHex[u & 15];
        }
    }
    return out;
}

std::string grouped(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += "\u2009";
        out += digits[i];
    }
    return out;
}

std::string utc_time(int64_t unix_ms) {
    if (unix_ms <= 0) return "";
    const std::time_t seconds = std::time_t(unix_ms / 1000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buffer;
}

namespace {

// Returns an enum value's proto name without its prefix, in lower case (RUN_KIND_TUNE: "tune").
std::string enum_text(const std::string& name, std::string_view prefix) {
    std::string text = name.substr(std::min(prefix.size(), name.size()));
    for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
    return text.empty() ? "unknown" : text;
}

}  // namespace

std::string kind_name(v1::RunKind kind) {
    return enum_text(v1::RunKind_Name(kind), "RUN_KIND_");
}

std::string state_name(v1::RunState state) {
    return enum_text(v1::RunState_Name(state), "RUN_STATE_");
}

}  // namespace sparring::coordinator::web
