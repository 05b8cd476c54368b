// PGN opening books: the first byte picks how many plies to keep (0-15, 0: all), the rest is
// the PGN; any bytes give openings of legal moves, or an error saying why.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/book_check.h"
#include "match/opening_book.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const int plies = data[0] % 16;
    std::istringstream in{std::string(reinterpret_cast<const char*>(data) + 1, size - 1)};
    std::string error;
    const auto book = sparring::match::read_pgn_book(in, "fuzz.pgn", plies, &error);
    sparring::fuzz::check_book(book, error);
    if (book && plies > 0)
        for (const sparring::Opening& opening : *book)
            FUZZ_CHECK(opening.moves.size() <= std::size_t(plies));
    return 0;
}
