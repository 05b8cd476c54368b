// Opening books: EPD and PGN files read into start positions, and the order they are played in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::match {

// A start position and the moves (UCI, legal from it) that the engines play out first.
struct Opening {
    std::string fen;
    std::vector<std::string> moves;

    bool operator==(const Opening&) const = default;
};

enum class BookFormat { Epd, Pgn };
enum class BookOrder { Sequential, Random };

// Reads EPD lines (the first four FEN fields, operations ignored, blank lines skipped);
// source names the input in error messages ("book.epd:12: ...").
std::optional<std::vector<Opening>> read_epd_book(std::istream& in, std::string_view source,
                                                  std::string* error = nullptr);
// Reads the first `plies` moves of every PGN game (all of them when plies is 0).
std::optional<std::vector<Opening>> read_pgn_book(std::istream& in, std::string_view source,
                                                  int plies, std::string* error = nullptr);
// Opens and reads a book file; an empty book is an error.
std::optional<std::vector<Opening>> load_book(const std::string& path, BookFormat format, int plies,
                                              std::string* error = nullptr);
// Parses "epd" or "pgn".
std::optional<BookFormat> parse_book_format(std::string_view text);
// Parses "sequential" or "random".
std::optional<BookOrder> parse_book_order(std::string_view text);

// Returns a permutation of [0, size): the identity, or a shuffle that depends only on seed.
std::vector<std::size_t> opening_order(std::size_t size, BookOrder order, std::uint64_t seed);

}  // namespace sparring::match
