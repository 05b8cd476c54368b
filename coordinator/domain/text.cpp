#include "coordinator/domain/text.h"

#include <array>
#include <charconv>
#include <cstdio>

#include "common/printable.h"
#include "coordinator/domain/run_kind.h"

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

constexpr std::array<std::string_view, 3> kRoles = {"worker", "user", "admin"};
constexpr std::array<std::string_view, 4> kRunStates = {"active", "finished", "stopped", "paused"};
constexpr std::array<std::string_view, 5> kLeaseStates = {"leased", "done", "expired", "released",
                                                          "stopped"};
constexpr std::array<std::string_view, 7> kGameEndings = {
    "", "rules", "adjudication", "time_loss", "crash", "stall", "illegal_move"};

}  // namespace

std::string excerpt(std::string_view text, size_t max) {
    const std::string_view kept = utf8_prefix(text, max);
    std::string out;
    for (size_t i = 0; i < kept.size(); ++i) {
        const auto c = static_cast<unsigned char>(kept[i]);
        if (c < 0x20 || c == 0x7f) {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        } else {
            out += char(c);
        }
    }
    if (text.size() > max) out += "... (" + std::to_string(text.size()) + " bytes)";
    return valid_utf8(out);
}

std::optional<int64_t> parse_int(std::string_view text) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

std::string_view role_name(Role role) {
    return kRoles[size_t(role)];
}
std::optional<Role> parse_role(std::string_view text) {
    return parse_enum<Role>(text, kRoles);
}
std::string_view run_kind_name(RunKind kind) {
    return run_kind(kind).name();
}
std::optional<RunKind> parse_run_kind(std::string_view text) {
    const RunKindModule* module = find_run_kind(text);
    return module ? std::optional<RunKind>(module->kind()) : std::nullopt;
}
std::string_view run_state_name(RunState state) {
    return kRunStates[size_t(state)];
}
std::optional<RunState> parse_run_state(std::string_view text) {
    return parse_enum<RunState>(text, kRunStates);
}
std::string_view lease_state_name(LeaseState state) {
    return kLeaseStates[size_t(state)];
}
std::optional<LeaseState> parse_lease_state(std::string_view text) {
    return parse_enum<LeaseState>(text, kLeaseStates);
}

std::string_view game_ending_name(GameEnding ending) {
    return kGameEndings[size_t(ending)];
}
std::optional<GameEnding> parse_game_ending(std::string_view text) {
    return parse_enum<GameEnding>(text, kGameEndings);
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
