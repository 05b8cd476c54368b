// Bitboard helpers and attack tables (magic bitboards, or PEXT with SPARRING_USE_PEXT).
// The tables are immutable and built before main() from constant data; nothing needs an init().
#pragma once

#include <array>
#include <bit>
#include <cstdlib>

#ifdef SPARRING_USE_PEXT
#include <immintrin.h>
#endif

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

constexpr Bitboard file_bb(int file) {
    return FILE_A_BB << file;
}
constexpr Bitboard rank_bb(int rank) {
    return RANK_1_BB << (8 * rank);
}

inline int popcount(Bitboard b) {
    return std::popcount(b);
}
inline Square lsb(Bitboard b) {
    return Square(std::countr_zero(b));
}
inline Square msb(Bitboard b) {
    return Square(63 - std::countl_zero(b));
}
// Removes the lowest set bit of b and returns its square.
inline Square pop_lsb(Bitboard& b) {
    Square s = lsb(b);
    b &= b - 1;
    return s;
}
inline bool more_than_one(Bitboard b) {
    return (b & (b - 1)) != 0;
}

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

namespace detail {

// One square's slider lookup: the relevant-occupancy mask, the magic factor and the square's
// slice of the shared attack array.
struct SliderMagic {
    Bitboard mask = 0;
    Bitboard magic = 0;
    const Bitboard* attacks = nullptr;
    unsigned shift = 0;

    // Maps an occupancy to its index in this square's slice.
    unsigned index(Bitboard occupied) const {
#ifdef SPARRING_USE_PEXT
        return static_cast<unsigned>(_pext_u64(occupied, mask));
#else
        return static_cast<unsigned>(((occupied & mask) * magic) >> shift);
#endif
    }
};

// Every attack and geometry table; the one instance is built before main() and never changes.
struct AttackTables {
    AttackTables();
    AttackTables(const AttackTables&) = delete;  // the magics point into this very object
    AttackTables& operator=(const AttackTables&) = delete;

    std::array<std::array<Bitboard, SQUARE_NB>, COLOR_NB> pawn{};
    std::array<Bitboard, SQUARE_NB> knight{};
    std::array<Bitboard, SQUARE_NB> king{};
    std::array<SliderMagic, SQUARE_NB> bishop{};
    std::array<SliderMagic, SQUARE_NB> rook{};
    std::array<Bitboard, SQUARE_NB> bishop_rays{};  // attacks on an empty board
    std::array<Bitboard, SQUARE_NB> rook_rays{};
    std::array<std::array<Bitboard, SQUARE_NB>, SQUARE_NB> between{};
    std::array<std::array<Bitboard, SQUARE_NB>, SQUARE_NB> line{};
    std::array<Bitboard, 5248> bishop_slices{};  // 2^(mask bits) entries per square, summed
    std::array<Bitboard, 102400> rook_slices{};
};

extern const AttackTables ATTACKS;

}  // namespace detail

inline Bitboard pawn_attacks(Color c, Square s) {
    return detail::ATTACKS.pawn[c][s];
}
inline Bitboard knight_attacks(Square s) {
    return detail::ATTACKS.knight[s];
}
inline Bitboard king_attacks(Square s) {
    return detail::ATTACKS.king[s];
}
inline Bitboard bishop_attacks(Square s, Bitboard occupied) {
    const detail::SliderMagic& m = detail::ATTACKS.bishop[s];
    return m.attacks[m.index(occupied)];
}
inline Bitboard rook_attacks(Square s, Bitboard occupied) {
    const detail::SliderMagic& m = detail::ATTACKS.rook[s];
    return m.attacks[m.index(occupied)];
}
// Returns the squares a bishop or a rook on s would attack on an empty board (a cheap
// test for whether a slider can be relevant at all).
inline Bitboard bishop_rays(Square s) {
    return detail::ATTACKS.bishop_rays[s];
}
inline Bitboard rook_rays(Square s) {
    return detail::ATTACKS.rook_rays[s];
}
inline Bitboard queen_attacks(Square s, Bitboard occupied) {
    return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}
// Returns the attacks of a non-pawn piece kind from s given the occupancy (inline: the
// evaluation calls it for every piece, usually with a constant kind).
inline Bitboard attacks_bb(PieceType pt, Square s, Bitboard occupied) {
    switch (pt) {
        case KNIGHT:
            return knight_attacks(s);
        case BISHOP:
            return bishop_attacks(s, occupied);
        case ROOK:
            return rook_attacks(s, occupied);
        case QUEEN:
            return queen_attacks(s, occupied);
        case KING:
            return king_attacks(s);
        default:
            return 0;
    }
}
// Returns the squares strictly between a and b on a rank, file or diagonal (0 if not aligned).
inline Bitboard between_bb(Square a, Square b) {
    return detail::ATTACKS.between[a][b];
}
// Returns the whole line through a and b (0 if not aligned).
inline Bitboard line_bb(Square a, Square b) {
    return detail::ATTACKS.line[a][b];
}
// Returns the Chebyshev distance between two squares.
inline int distance(Square a, Square b) {
    int files = std::abs(file_of(a) - file_of(b));
    int ranks = std::abs(rank_of(a) - rank_of(b));
    return files > ranks ? files : ranks;
}

}  // namespace sparring
