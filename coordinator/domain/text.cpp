#include "coordinator/domain/text.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace sparring::coordinator {

namespace {

// Returns the enum value whose name is text, from a table of names indexed by value.
template <typename Enum, size_t N>
std::optional<Enum> parse_enum(std::string_view text,
                               const std::array<std::string_view, N>& names) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == text) return Enum(i);
    return std::nullopt;
}

constexpr std::array<std::string_view, 2> kRoles = {"worker", "user"};
constexpr std::array<std::string_view, 6> kRunKinds = {"regression", "fixed_games", "tune",
                                                       "generate",   "train",       "chain"};
constexpr std::array<std::string_view, 3> kRunStates = {"active", "finished", "stopped"};
constexpr std::array<std::string_view, 5> kBatchStates = {"leased", "done", "expired", "released",
                                                          "stopped"};
constexpr std::array<std::string_view, 3> kOutcomes = {"loss", "draw", "win"};

// Returns milliseconds written as seconds without trailing zeros ("10", "0.1", "2.05").
std::string seconds(int ms) {
    std::string s = std::to_string(ms / 1000);
    if (ms % 1000 == 0) return s;
    char frac[8];
    std::snprintf(frac, sizeof frac, "%03d", ms % 1000);
    std::string f = frac;
    while (f.back() == '0') f.pop_back();
    return s + "." + f;
}

// Parses a non-negative decimal number of seconds with at most three decimals into ms.
std::optional<int> parse_seconds(std::string_view text) {
    const size_t dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    std::string_view frac = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || frac.size() > 3 || (dot != std::string_view::npos && frac.empty()))
        return std::nullopt;
    int w = 0;
    if (auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), w);
        ec != std::errc() || p != whole.data() + whole.size() || w > 1'000'000)
        return std::nullopt;
    int f = 0;
    for (size_t i = 0; i < 3; ++i) {
        const char c = i < frac.size() ? frac[i] : '0';
        if (c < '0' || c > '9') return std::nullopt;
        f = f * 10 + (c - '0');
    }
    return w * 1000 + f;
}

// Parses a whole non-negative number that is all of text.
std::optional<uint64_t> parse_uint(std::string_view text) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

}  // namespace

std::string_view role_name(Role role) {
    return kRoles[size_t(role)];
}
std::optional<Role> parse_role(std::string_view text) {
    return parse_enum<Role>(text, kRoles);
}
std::string_view run_kind_name(RunKind kind) {
    return kRunKinds[size_t(kind)];
}
std::optional<RunKind> parse_run_kind(std::string_view text) {
    return parse_enum<RunKind>(text, kRunKinds);
}
std::string_view run_state_name(RunState state) {
    return kRunStates[size_t(state)];
}
std::optional<RunState> parse_run_state(std::string_view text) {
    return parse_enum<RunState>(text, kRunStates);
}
std::string_view batch_state_name(BatchState state) {
    return kBatchStates[size_t(state)];
}
std::optional<BatchState> parse_batch_state(std::string_view text) {
    return parse_enum<BatchState>(text, kBatchStates);
}
std::string_view outcome_name(Outcome outcome) {
    return kOutcomes[size_t(outcome)];
}
std::optional<Outcome> parse_outcome(std::string_view text) {
    return parse_enum<Outcome>(text, kOutcomes);
}

std::string format_time_control(const TimeControl& tc) {
    switch (tc.kind) {
        case TimeControl::Kind::Nodes:
            return "nodes=" + std::to_string(tc.nodes);
        case TimeControl::Kind::Depth:
            return "depth=" + std::to_string(tc.depth);
        case TimeControl::Kind::MoveTime:
            return "movetime=" + std::to_string(tc.movetime_ms);
        case TimeControl::Kind::Clock:
            return seconds(tc.base_ms) + "+" + seconds(tc.inc_ms);
    }
    return {};
}

std::optional<TimeControl> parse_time_control(std::string_view text) {
    TimeControl tc;
    const size_t eq = text.find('=');
    if (eq != std::string_view::npos) {
        const std::string_view key = text.substr(0, eq);
        const auto value = parse_uint(text.substr(eq + 1));
        if (!value || *value > 1'000'000'000) return std::nullopt;
        if (key == "nodes") {
            tc.kind = TimeControl::Kind::Nodes;
            tc.nodes = *value;
        } else if (key == "depth") {
            tc.kind = TimeControl::Kind::Depth;
            tc.depth = int(*value);
        } else if (key == "movetime") {
            tc.kind = TimeControl::Kind::MoveTime;
            tc.movetime_ms = int(*value);
        } else {
            return std::nullopt;
        }
        return tc;
    }
    const size_t plus = text.find('+');
    const auto base = parse_seconds(text.substr(0, plus));
    const auto inc = plus == std::string_view::npos ? std::optional<int>(0)
                                                    : parse_seconds(text.substr(plus + 1));
    if (!base || !inc) return std::nullopt;
    tc.kind = TimeControl::Kind::Clock;
    tc.base_ms = *base;
    tc.inc_ms = *inc;
    return tc;
}

std::string format_openings(const std::vector<Opening>& openings) {
    std::string out;
    for (const Opening& o : openings) {
        out += o.fen;
        out += '\t';
        for (size_t i = 0; i < o.moves.size(); ++i) {
            if (i) out += ' ';
            out += o.moves[i];
        }
        out += '\n';
    }
    return out;
}

std::vector<Opening> parse_openings(std::string_view text) {
    std::vector<Opening> openings;
    while (!text.empty()) {
        const size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        const size_t tab = line.find('\t');
        Opening o;
        o.fen = std::string(line.substr(0, tab));
        std::string_view moves = tab == std::string_view::npos ? "" : line.substr(tab + 1);
        while (!moves.empty()) {
            const size_t space = moves.find(' ');
            o.moves.emplace_back(moves.substr(0, space));
            moves = space == std::string_view::npos ? std::string_view() : moves.substr(space + 1);
        }
        openings.push_back(std::move(o));
    }
    return openings;
}

}  // namespace sparring::coordinator
