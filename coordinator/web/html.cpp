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

std::string signed_fixed(double value, int decimals) {
    if (!std::isfinite(value)) return "n/a";
    // A value that rounds to zero shows no sign: "-0.00" would suggest a direction.
    if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, value == 0 ? "%.*f" : "%+.*f", decimals, value);
    return buffer;
}

std::string fixed(double value, int decimals) {
    if (!std::isfinite(value)) return "n/a";
    if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0.00"
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
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

std::string time_control_text(const v1::TimeControl& tc) {
    switch (tc.limit_case()) {
        case v1::TimeControl::kNodes:
            return "nodes=" + std::to_string(tc.nodes());
        case v1::TimeControl::kDepth:
            return "depth=" + std::to_string(tc.depth());
        case v1::TimeControl::kMovetimeMs:
            return "movetime=" + std::to_string(tc.movetime_ms());
        case v1::TimeControl::kClock:
            return fixed(tc.clock().base_ms() / 1000.0, tc.clock().base_ms() % 1000 ? 1 : 0) + "+" +
                   fixed(tc.clock().increment_ms() / 1000.0,
                         tc.clock().increment_ms() % 1000 ? 2 : 0);
        default:
            return "none";
    }
}

}  // namespace sparring::coordinator::web
