// Conversions between square names, indices and one-bit masks.
#include "engine/lookup_tables.h"

#include "engine/bitboard.h"

namespace sparring::lookup_tables {

// Returns the square named like "e5" (lower or upper case file), or nullopt.
std::optional<Square> index_from_name(std::string_view name) {
    if (name.size() != 2) return std::nullopt;
    char file = name[0] >= 'A' && name[0] <= 'H' ? char(name[0] - 'A' + 'a') : name[0];
    char rank = name[1];
    if (file < 'a' || file > 'h' || rank < '1' || rank > '8') return std::nullopt;
    return make_square(file - 'a', rank - '1');
}

// Returns the name ("e5") of a square index 0..63.
std::string name_from_index(Square s) {
    return {char('a' + file_of(s)), char('1' + rank_of(s))};
}

// Returns the index of a one-bit mask, or nullopt when the mask has not exactly one bit.
std::optional<Square> index_from_mask(Bitboard mask) {
    if (mask == 0 || more_than_one(mask)) return std::nullopt;
    return lsb(mask);
}

// Returns the mask of a named square, or nullopt.
std::optional<Bitboard> mask_from_name(std::string_view name) {
    std::optional<Square> s = index_from_name(name);
    if (!s) return std::nullopt;
    return mask_from_index(*s);
}

// Returns the name of a one-bit mask, or nullopt when the mask has not exactly one bit.
std::optional<std::string> name_from_mask(Bitboard mask) {
    std::optional<Square> s = index_from_mask(mask);
    if (!s) return std::nullopt;
    return name_from_index(*s);
}

}  // namespace sparring::lookup_tables
