// Openings: a start position and the moves played out from it, and the order a book's
// openings are played in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_control.h"

namespace sparring {

// A start position and the moves (UCI, legal from it) that the engines play out first.
struct Opening {
    std::string fen;
    std::vector<std::string> moves;

    bool operator==(const Opening&) const = default;
};

enum class BookOrder { Sequential, Random };

// Parses "sequential" or "random".
std::optional<BookOrder> parse_book_order(std::string_view text);

// Returns a permutation of [0, size): the identity, or a shuffle that depends only on seed.
std::vector<std::size_t> opening_order(std::size_t size, BookOrder order, std::uint64_t seed);

// Returns a warning (empty: none; the text without a "warning: " prefix) when `pairs` game pairs at
// a node or depth limit draw on a book of fewer openings. Such a game is a function of its opening,
// its colours and its engines (for the built-in engine and engines searching on one thread), so a
// pair past the book's end replays a pair already played: it adds no information, yet Elo, its
// interval and the SPRT count it as new. `games` names the games in the message ("8000 games", "up
// to 20000 games"). Any other time control lets the engines' timing vary the games, so a replay is
// another game.
std::string replay_warning(std::string_view games, std::uint64_t pairs, std::size_t openings,
                           const TimeControl& tc);

// Returns a warning's first sentence, for a list that has a line for it (the whole when it has
// one sentence).
std::string_view first_sentence(std::string_view warning);

}  // namespace sparring
