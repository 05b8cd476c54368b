// Conversions between algebraic names ("e5"), square indices (36) and one-bit masks (2^36),
// as the seed's chessengine.lookup_tables module offers them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/types.h"

namespace sparring::lookup_tables {

// Returns the square named like "e5" (lower or upper case file), or nullopt.
std::optional<Square> index_from_name(std::string_view name);
// Returns the name ("e5") of a square index 0..63.
std::string name_from_index(Square s);
// Returns the one-bit mask of a square index.
constexpr Bitboard mask_from_index(Square s) {
    return square_bb(s);
}
// Returns the index of a one-bit mask, or nullopt when the mask has not exactly one bit.
std::optional<Square> index_from_mask(Bitboard mask);
// Returns the mask of a named square, or nullopt.
std::optional<Bitboard> mask_from_name(std::string_view name);
// Returns the name of a one-bit mask, or nullopt when the mask has not exactly one bit.
std::optional<std::string> name_from_mask(Bitboard mask);

}  // namespace sparring::lookup_tables
