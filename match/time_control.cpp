#include "match/time_control.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace sparring::match {

namespace {

// Parses a whole string as a positive integer no larger than max.
std::optional<std::uint64_t> parse_positive(std::string_view text, std::uint64_t max) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > max)
        return std::nullopt;
    return value;
}

// Parses a non-negative decimal number of seconds ("10", "0.1", "2.5") into milliseconds.
std::optional<int> parse_seconds(std::string_view text) {
    if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
    double seconds = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(seconds) ||
        seconds * 1000 > std::numeric_limits<int>::max())
        return std::nullopt;
    return static_cast<int>(std::lround(seconds * 1000));
}

// Formats milliseconds as seconds without trailing zeros ("10", "0.1").
std::string seconds_text(int ms) {
    char buffer[32];
    if (ms % 1000 == 0)
        std::snprintf(buffer, sizeof buffer, "%d", ms / 1000);
    else if (ms % 100 == 0)
        std::snprintf(buffer, sizeof buffer, "%.1f", ms / 1000.0);
    else if (ms % 10 == 0)
        std::snprintf(buffer, sizeof buffer, "%.2f", ms / 1000.0);
    else
        std::snprintf(buffer, sizeof buffer, "%.3f", ms / 1000.0);
    return buffer;
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
    constexpr int MaxMs = std::numeric_limits<int>::max();
    TimeControl tc;
    if (auto eq = text.find('='); eq != std::string_view::npos) {
        std::string_view key = text.substr(0, eq);
        std::string_view value = text.substr(eq + 1);
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
            auto n = parse_positive(value, MaxMs);
            if (!n) return fail("movetime must be a positive number of milliseconds");
            tc.kind = TimeControl::Kind::MoveTime;
            tc.movetime_ms = static_cast<int>(*n);
        } else {
            return fail("unknown key '" + std::string(key) + "'");
        }
        return tc;
    }
    std::string_view base = text;
    std::string_view inc = "0";
    if (auto plus = text.find('+'); plus != std::string_view::npos) {
        base = text.substr(0, plus);
        inc = text.substr(plus + 1);
    }
    auto base_ms = parse_seconds(base);
    auto inc_ms = parse_seconds(inc);
    if (!base_ms || !inc_ms) return fail("not a number of seconds");
    if (*base_ms == 0) return fail("the base time must be positive");
    tc.kind = TimeControl::Kind::Clock;
    tc.base_ms = *base_ms;
    tc.inc_ms = *inc_ms;
    return tc;
}

}  // namespace sparring::match
