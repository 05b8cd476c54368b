// The outcome of a game for one side, and its PGN and stored names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sparring {

// A game's outcome for one side: white's, unless the record holding it names the side (the
// coordinator's game records count for the test version). Its value is that side's half
// points, which position records and report digests store.
enum class Outcome : std::uint8_t { Loss, Draw, Win };

// Returns the outcome for the other side.
constexpr Outcome flipped(Outcome outcome) {
    return Outcome(2 - static_cast<int>(outcome));
}
// Returns the side's half points: 0, 1 or 2.
constexpr int half_points(Outcome outcome) {
    return static_cast<int>(outcome);
}

// Returns the PGN result token of white's outcome: "1-0", "1/2-1/2" or "0-1".
std::string_view pgn_result(Outcome white);
// Parses a PGN result token into white's outcome; nullopt for "*" and anything else.
std::optional<Outcome> parse_pgn_result(std::string_view text);
// Returns "loss", "draw" or "win".
std::string_view outcome_name(Outcome outcome);
// Parses "loss", "draw" or "win".
std::optional<Outcome> parse_outcome(std::string_view text);

}  // namespace sparring
