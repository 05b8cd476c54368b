#include "common/time_control.h"

#include <charconv>
#include <cstdio>
#include <limits>

namespace sparring {

namespace {

constexpr int kMaxSeconds = 1'000'000;

// Parses a whole string of decimal digits as a positive integer no larger than max.
std::optional<std::uint64_t> parse_positive(std::string_view text, std::uint64_t max) {
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > max)
        return std::nullopt;
    return value;
}

// Parses a non-negative decimal number of seconds with at most three decimals ("10", "0.1",
// "2.05") into milliseconds.
std::optional<int> parse_seconds(std::string_view text) {
    const std::size_t dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || frac.size() > 3 || (dot != std::string_view::npos && frac.empty()))
        return std::nullopt;
    int ms = 0;
    for (const char c : whole) {
        if (c < '0' || c > '9') return std::nullopt;
        ms = ms * 10 + (c - '0');
        if (ms > kMaxSeconds) return std::nullopt;
    }
    for (std::size_t i = 0; i < 3; ++i) {
        const char c = i < frac.size() ? frac[i] : '0';
        if (c < '0' || c > '9') return std::nullopt;
        ms = ms * 10 + (c - '0');
    }
    return ms;
}

// Formats milliseconds as seconds without trailing zeros ("10", "0.1", "2.05").
std::string seconds_text(int ms) {
    std::string text = std::to_string(ms / 1000);
    if (ms % 1000 == 0) return text;
    char frac[8];
    std::snprintf(frac, sizeof frac, "%03d", ms % 1000);
    std::string digits = frac;
    while (digits.back() == '0') digits.pop_back();
    return text + "." + digits;
}

}  // namespace

// Writes the kind's key and value, or the clock in seconds.
std::string TimeControl::to_string() const {
    switch (kind) {
        case Kind::Nodes:
            return "nodes=" + std::to_string(nodes);
        case Kind::Depth:
            return "depth=" + std::to_string(depth);
        case Kind::MoveTime:
            return "movetime=" + std::to_string(movetime_ms);
        case Kind::Clock:
            return seconds_text(base_ms) + "+" + seconds_text(inc_ms);
    }
    return {};
}

// Writes the clock as PGN does, a movetime as "SECONDS/move", and "-" otherwise.
std::string TimeControl::pgn_tag() const {
    switch (kind) {
        case Kind::Nodes:
        case Kind::Depth:
            return "-";
        case Kind::MoveTime:
            return seconds_text(movetime_ms) + "/move";
        case Kind::Clock:
            return inc_ms == 0 ? seconds_text(base_ms)
                               : seconds_text(base_ms) + "+" + seconds_text(inc_ms);
    }
    return "-";
}

// Reads a key=value limit, or else a clock.
std::optional<TimeControl> parse_time_control(std::string_view text, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<TimeControl> {
        if (error)
            *error = "bad time control '" + std::string(text) + "': " + why +
                     " (expected nodes=N, depth=N, movetime=MS or BASE+INC in seconds)";
        return std::nullopt;
    };
    TimeControl tc;
    if (auto eq = text.find('='); eq != std::string_view::npos) {
        const std::string_view key = text.substr(0, eq);
        const std::string_view value = text.substr(eq + 1);
        if (key == "nodes") {
            auto n = parse_positive(value, std::numeric_limits<std::uint64_t>::max());
            if (!n) return fail("nodes must be a positive integer");
            tc.kind = TimeControl::Kind::Nodes;
            tc.nodes = *n;
        } else if (key == "depth") {
            auto n = parse_positive(value, 255);
            if (!n) return fail("depth must be an integer from 1 to 255");
            tc.kind = TimeControl::Kind::Depth;
            tc.depth = static_cast<int>(*n);
        } else if (key == "movetime") {
            auto n = parse_positive(value, std::numeric_limits<int>::max());
            if (!n) return fail("movetime must be a positive number of milliseconds");
            tc.kind = TimeControl::Kind::MoveTime;
            tc.movetime_ms = static_cast<int>(*n);
        } else {
            return fail("unknown key '" + std::string(key) + "'");
        }
        return tc;
    }
    const std::size_t plus = text.find('+');
    const auto base_ms = parse_seconds(text.substr(0, plus));
    const auto inc_ms = plus == std::string_view::npos ? std::optional<int>(0)
                                                       : parse_seconds(text.substr(plus + 1));
    if (!base_ms || !inc_ms)
        return fail("not a number of seconds (at most " + std::to_string(kMaxSeconds) +
                    ", with at most three decimals)");
    if (*base_ms == 0) return fail("the base time must be positive");
    tc.kind = TimeControl::Kind::Clock;
    tc.base_ms = *base_ms;
    tc.inc_ms = *inc_ms;
    return tc;
}

}  // namespace sparring
