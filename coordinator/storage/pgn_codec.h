// The compact stored form of a game's PGN (docs/database.md, games.pgn): the PGN as the match
// library writes it (match/pgn.h write_pgn), taken apart into its tags, each move as its index
// in the position's legal-move list, and each comment's numbers, range-coded with adaptive
// probabilities.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

// The first byte of a compact PGN. A zlib stream (the stored form before schema 28, and the
// fallback) starts with 0x78 and never with this byte.
inline constexpr unsigned char kCompactPgnFormat = 0x01;

// Returns the compact form of the PGN, or nullopt when the text is not laid out as write_pgn
// lays it out (unknown shape, illegal move, a FEN the engine library refuses, ...). The caller
// still checks that unpack_pgn gives the text back (encode_pgn does).
std::optional<std::string> pack_pgn(std::string_view pgn);
// Returns the PGN text of a compact form, or nullopt when it is damaged or forged: every
// count and length is bounded by the bytes it came in, and the text by max_text_bytes.
std::optional<std::string> unpack_pgn(std::string_view packed,
                                      std::size_t max_text_bytes = 64u << 20);

}  // namespace sparring::coordinator
