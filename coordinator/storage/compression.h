// zlib compression of stored PGN and opening books.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

// Returns the zlib stream of the bytes.
std::string compress(std::string_view bytes);
// Returns the bytes of a zlib stream, or nullopt if it is damaged or holds more than max_bytes.
std::optional<std::string> decompress(std::string_view stream,
                                      std::size_t max_bytes = std::size_t(-1));

// The stored form of a game's PGN (docs/database.md, games.pgn), owned here and in
// pgn_codec.cpp: the compact form (pgn_codec.h) when it gives the text back byte for byte, else
// the zlib stream of the text, as every game was stored before schema 28. The threads that
// read reports off the wire make it (GameRecord::stored_pgn), so that the one writer does not.
std::string encode_pgn(std::string_view pgn);
// Returns a stored PGN's text (either form), or nullopt if it is damaged or would be longer
// than 64 MiB.
std::optional<std::string> decode_pgn(std::string_view stored);
// The stored form before schema 28: the zlib stream of the text (what migration 28 converts).
std::string encode_pgn_zlib(std::string_view pgn);

}  // namespace sparring::coordinator
