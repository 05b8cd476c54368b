// zlib compression of stored PGN and opening books.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

// Returns the zlib stream of the bytes.
std::string compress(std::string_view bytes);
// Returns the bytes of a zlib stream, or nullopt if it is damaged.
std::optional<std::string> decompress(std::string_view stream);

// The stored form of a game's PGN, owned here: its zlib stream. The threads that read reports
// off the wire make it (GameRecord::stored_pgn), so that the one writer does not compress.
inline std::string encode_pgn(std::string_view pgn) {
    return compress(pgn);
}
// Returns a stored PGN's text, or nullopt if it is damaged.
inline std::optional<std::string> decode_pgn(std::string_view stored) {
    return decompress(stored);
}

}  // namespace sparring::coordinator
