// EPD opening books: any bytes give openings that are legal positions, or an error saying why.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz/book_check.h"
#include "match/opening_book.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in{std::string(reinterpret_cast<const char*>(data), size)};
    std::string error;
    const auto book = sparring::match::read_epd_book(in, "fuzz.epd", &error);
    sparring::fuzz::check_book(book, error);
    return 0;
}
