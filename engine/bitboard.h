// Bitboard helpers and attack tables (magic bitboards, or PEXT with SPARRING_USE_PEXT).
// The tables are immutable and built before main() from constant data; nothing needs an init().
#pragma once

#include <bit>

#include "engine/types.h"

namespace sparring {

constexpr Bitboard FILE_A_BB = 0x0101010101010101ULL;
constexpr Bitboard FILE_H_BB = FILE_A_BB << 7;
constexpr Bitboard RANK_1_BB = 0xFFULL;
constexpr Bitboard RANK_2_BB = RANK_1_BB << 8;
constexpr Bitboard RANK_3_BB = RANK_1_BB << 16;
constexpr Bitboard RANK_4_BB = RANK_1_BB << 24;
constexpr Bitboard RANK_5_BB = RANK_1_BB << 32;
constexpr Bitboard RANK_6_BB = RANK_1_BB << 40;
constexpr Bitboard RANK_7_BB = RANK_1_BB << 48;
constexpr Bitboard RANK_8_BB = RANK_1_BB << 56;

constexpr Bitboard file_bb(int file) { return FILE_A_BB << file; }
constexpr Bitboard rank_bb(int rank) { return RANK_1_BB << (8 * rank); }

inline int popcount(Bitboard b) { return std::popcount(b); }
inline Square lsb(Bitboard b) { return Square(std::countr_zero(b)); }
inline Square msb(Bitboard b) { return Square(63 - std::countl_zero(b)); }
// Removes the lowest set bit of b and returns its square.
inline Square pop_lsb(Bitboard& b) {
    Square s = lsb(b);
    b &= b - 1;
    return s;
}
inline bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

// Shifts every bit of b one step in a direction, dropping bits that would wrap around.
template <int Delta>
constexpr Bitboard shift(Bitboard b) {
    if constexpr (Delta == 8) return b << 8;
    if constexpr (Delta == -8) return b >> 8;
    if constexpr (Delta == 16) return b << 16;
    if constexpr (Delta == -16) return b >> 16;
    if constexpr (Delta == 1) return (b & ~FILE_H_BB) << 1;
    if constexpr (Delta == -1) return (b & ~FILE_A_BB) >> 1;
    if constexpr (Delta == 9) return (b & ~FILE_H_BB) << 9;
    if constexpr (Delta == 7) return (b & ~FILE_A_BB) << 7;
    if constexpr (Delta == -7) return (b & ~FILE_H_BB) >> 7;
    if constexpr (Delta == -9) return (b & ~FILE_A_BB) >> 9;
    return 0;
}

Bitboard pawn_attacks(Color c, Square s);
Bitboard knight_attacks(Square s);
Bitboard king_attacks(Square s);
Bitboard bishop_attacks(Square s, Bitboard occupied);
Bitboard rook_attacks(Square s, Bitboard occupied);
inline Bitboard queen_attacks(Square s, Bitboard occupied) {
    return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}
// Returns the attacks of a non-pawn piece kind from s given the occupancy.
Bitboard attacks_bb(PieceType pt, Square s, Bitboard occupied);
// Returns the squares strictly between a and b on a rank, file or diagonal (0 if not aligned).
Bitboard between_bb(Square a, Square b);
// Returns the whole line through a and b (0 if not aligned).
Bitboard line_bb(Square a, Square b);
// Returns the Chebyshev distance between two squares.
int distance(Square a, Square b);

}  // namespace sparring
