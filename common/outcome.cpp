#include "common/outcome.h"

#include <array>

namespace sparring {

namespace {

constexpr std::array<std::string_view, 3> kPgnResults = {"0-1", "1/2-1/2", "1-0"};
constexpr std::array<std::string_view, 3> kNames = {"loss", "draw", "win"};

// Returns the outcome whose entry in names is text.
std::optional<Outcome> find(const std::array<std::string_view, 3>& names, std::string_view text) {
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return Outcome(i);
    return std::nullopt;
}

}  // namespace

std::string_view pgn_result(Outcome white) {
    return kPgnResults[std::size_t(white)];
}

std::optional<Outcome> parse_pgn_result(std::string_view text) {
    return find(kPgnResults, text);
}

std::string_view outcome_name(Outcome outcome) {
    return kNames[std::size_t(outcome)];
}

std::optional<Outcome> parse_outcome(std::string_view text) {
    return find(kNames, text);
}

}  // namespace sparring
