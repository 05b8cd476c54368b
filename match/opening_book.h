// Opening books: EPD and PGN files read into start positions.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/opening.h"

namespace sparring::match {

enum class BookFormat { Epd, Pgn };

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

}  // namespace sparring::match
