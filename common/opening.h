// Openings: a start position and the moves played out from it, and the order a book's
// openings are played in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace sparring
