// A position in 32 bytes, for datasets held in memory and for storage: the occupied squares,
// one nibble per piece, side to move, castling rights, en passant square and the clocks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/board.h"

namespace sparring::training {

// Layout: bytes 0-7 the occupied squares (little endian), 8-23 the pieces of those squares
// in square order (a Piece per nibble, low nibble first), 24 side to move (bit 0) and
// castling rights (bits 1-4), 25 the en passant square (64: none), 26 the halfmove clock,
// 27-29 the fullmove number (little endian), 30-31 zero.
struct PackedPosition {
    std::array<std::uint8_t, 32> bytes{};

    bool operator==(const PackedPosition&) const = default;
};

// Returns the board in packed form, or nullopt with *error when it has more than 32 pieces.
std::optional<PackedPosition> pack_position(const Board& board, std::string* error = nullptr);
// Sets *board to the packed position; false with *error when the bytes are not a position
// the board accepts (stored data is checked like a FEN).
bool unpack_position(const PackedPosition& packed, Board* board, std::string* error = nullptr);

}  // namespace sparring::training
