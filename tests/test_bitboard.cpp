// The attack tables against an independent ray walk, and the geometry helpers.
#include <gtest/gtest.h>

#include <random>

#include "engine/bitboard.h"
#include "engine/lookup_tables.h"
#include "engine_samples.h"

namespace sparring {
namespace {

using samples::at;

// Walks from s in each (file, rank) step until the edge or the first occupied square.
Bitboard walk(Square s, Bitboard occupied, std::initializer_list<std::pair<int, int>> steps) {
    Bitboard attacks = 0;
    for (auto [df, dr] : steps) {
        int f = file_of(s) + df, r = rank_of(s) + dr;
        for (; f >= 0 && f < 8 && r >= 0 && r < 8; f += df, r += dr) {
            attacks |= square_bb(make_square(f, r));
            if (occupied & square_bb(make_square(f, r))) break;
        }
    }
    return attacks;
}

Bitboard rook_walk(Square s, Bitboard occupied) {
    return walk(s, occupied, {{1, 0}, {-1, 0}, {0, 1}, {0, -1}});
}
Bitboard bishop_walk(Square s, Bitboard occupied) {
    return walk(s, occupied, {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}});
}

// Returns the squares whose occupancy can change a slider's attacks from s (edges excluded).
Bitboard relevant(Bitboard empty_board_attacks, Square s) {
    const Bitboard edges = ((RANK_1_BB | RANK_8_BB) & ~rank_bb(rank_of(s))) |
                           ((FILE_A_BB | FILE_H_BB) & ~file_bb(file_of(s)));
    return empty_board_attacks & ~edges;
}

TEST(Bitboard, SliderAttacksMatchARayWalkForEveryRelevantOccupancy) {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 64; ++i) {
        const Square s = Square(i);
        for (bool rook : {false, true}) {
            const Bitboard mask = relevant(rook ? rook_walk(s, 0) : bishop_walk(s, 0), s);
            Bitboard subset = 0;
            do {
                // Pieces outside the relevant squares must not change anything.
                const Bitboard occupied = subset | (rng() & ~mask & ~square_bb(s));
                const Bitboard expected = rook ? rook_walk(s, subset) : bishop_walk(s, subset);
                ASSERT_EQ(rook ? rook_attacks(s, occupied) : bishop_attacks(s, occupied), expected)
                    << (rook ? "rook on " : "bishop on ") << lookup_tables::name_from_index(s);
                subset = (subset - mask) & mask;
            } while (subset);
        }
        const Bitboard occupied = rng() & rng();
        EXPECT_EQ(queen_attacks(s, occupied), rook_walk(s, occupied) | bishop_walk(s, occupied));
        EXPECT_EQ(attacks_bb(QUEEN, s, occupied), queen_attacks(s, occupied));
        EXPECT_EQ(attacks_bb(ROOK, s, occupied), rook_attacks(s, occupied));
        EXPECT_EQ(attacks_bb(BISHOP, s, occupied), bishop_attacks(s, occupied));
        EXPECT_EQ(attacks_bb(KNIGHT, s, occupied), knight_attacks(s));
        EXPECT_EQ(attacks_bb(KING, s, occupied), king_attacks(s));
    }
}

TEST(Bitboard, LeaperAttacksStayOnTheBoard) {
    EXPECT_EQ(knight_attacks(SQ_A1), at("b3") | at("c2"));
    EXPECT_EQ(knight_attacks(SQ_H8), at("g6") | at("f7"));
    EXPECT_EQ(popcount(knight_attacks(SQ_E4)), 8);
    EXPECT_EQ(king_attacks(SQ_A1), at("a2") | at("b1") | at("b2"));
    EXPECT_EQ(popcount(king_attacks(SQ_E4)), 8);
    EXPECT_EQ(pawn_attacks(WHITE, SQ_A2), at("b3"));
    EXPECT_EQ(pawn_attacks(WHITE, SQ_E4), at("d5") | at("f5"));
    EXPECT_EQ(pawn_attacks(BLACK, SQ_H7), at("g6"));
    EXPECT_EQ(pawn_attacks(BLACK, SQ_E4), at("d3") | at("f3"));
    EXPECT_EQ(pawn_attacks(WHITE, SQ_E8), 0u);
}

TEST(Bitboard, BetweenLineAndDistance) {
    EXPECT_EQ(between_bb(SQ_A1, SQ_H8),
              at("b2") | at("c3") | at("d4") | at("e5") | at("f6") | at("g7"));
    EXPECT_EQ(between_bb(SQ_H8, SQ_A1), between_bb(SQ_A1, SQ_H8));
    EXPECT_EQ(between_bb(SQ_E1, SQ_E4), at("e2") | at("e3"));
    EXPECT_EQ(between_bb(SQ_E1, SQ_E2), 0u);
    EXPECT_EQ(between_bb(SQ_A1, SQ_B3), 0u);
    EXPECT_EQ(line_bb(SQ_C3, SQ_E5), between_bb(SQ_A1, SQ_H8) | at("a1") | at("h8"));
    EXPECT_EQ(line_bb(SQ_D1, SQ_D7), file_bb(3));
    EXPECT_EQ(line_bb(SQ_A1, SQ_B3), 0u);
    EXPECT_EQ(distance(SQ_A1, SQ_H8), 7);
    EXPECT_EQ(distance(SQ_E4, SQ_F6), 2);
    EXPECT_EQ(distance(SQ_E4, SQ_E4), 0);
}

TEST(Bitboard, ShiftsDropBitsThatWouldWrap) {
    EXPECT_EQ(shift<1>(FILE_H_BB), 0u);
    EXPECT_EQ(shift<-1>(FILE_A_BB), 0u);
    EXPECT_EQ(shift<9>(at("h4") | at("a4")), at("b5"));
    EXPECT_EQ(shift<-9>(at("a4") | at("h4")), at("g3"));
    EXPECT_EQ(shift<8>(RANK_8_BB), 0u);
    EXPECT_EQ(shift<-16>(RANK_4_BB), RANK_2_BB);
    Bitboard two = at("c2") | at("e5");
    EXPECT_EQ(pop_lsb(two), SQ_C2);
    EXPECT_EQ(two, at("e5"));
    EXPECT_EQ(msb(at("c2") | at("e5")), SQ_E5);
    EXPECT_TRUE(more_than_one(at("c2") | at("e5")));
    EXPECT_FALSE(more_than_one(at("c2")));
}

}  // namespace
}  // namespace sparring
