// UCI and SAN notation: formatting, parsing against the legal moves, and round trips.
#include <gtest/gtest.h>

#include <set>

#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine_samples.h"

namespace sparring {
namespace {

using samples::board_at;

// Returns the SAN of the legal move written in UCI.
std::string san_of(const Board& board, const char* uci) {
    const Move m = parse_uci(board, uci);
    EXPECT_TRUE(m) << uci << " is not legal in " << board.fen();
    return to_san(board, m);
}

TEST(Notation, FormatsUci) {
    EXPECT_EQ(to_uci(Move(SQ_E2, SQ_E4)), "e2e4");
    EXPECT_EQ(to_uci(Move(SQ_E7, SQ_E8, Move::PROMOTION, QUEEN)), "e7e8q");
    EXPECT_EQ(to_uci(Move(SQ_B2, SQ_A1, Move::PROMOTION, KNIGHT)), "b2a1n");
    EXPECT_EQ(to_uci(Move(SQ_E1, SQ_G1, Move::CASTLING)), "e1g1");
    EXPECT_EQ(to_uci(Move(SQ_E5, SQ_D6, Move::EN_PASSANT)), "e5d6");
    EXPECT_EQ(to_uci(Move::none()), "0000");
}

TEST(Notation, ParsesUciAgainstTheLegalMoves) {
    const Board start;
    EXPECT_EQ(parse_uci(start, "e2e4"), Move(SQ_E2, SQ_E4));
    EXPECT_EQ(parse_uci(start, "g1f3"), Move(SQ_G1, SQ_F3));
    for (const char* bad : {"e2e5", "e7e5", "e2", "e2e4e", "", "0000", "i2i4", "e2e4q"})
        EXPECT_FALSE(parse_uci(start, bad)) << bad;

    const Board castle = board_at("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_EQ(parse_uci(castle, "e1g1").kind(), Move::CASTLING);
    EXPECT_EQ(parse_uci(castle, "e1c1").kind(), Move::CASTLING);

    const Board promote = board_at("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_EQ(parse_uci(promote, "e7d8n"), Move(SQ_E7, SQ_D8, Move::PROMOTION, KNIGHT));
    EXPECT_EQ(parse_uci(promote, "E7D8Q"), Move(SQ_E7, SQ_D8, Move::PROMOTION, QUEEN));
    EXPECT_FALSE(parse_uci(promote, "e7d8")) << "a promotion needs its piece";
    EXPECT_FALSE(parse_uci(promote, "e7d8k"));
}

TEST(Notation, WritesSanForEveryKindOfMove) {
    const Board start;
    EXPECT_EQ(san_of(start, "g1f3"), "Nf3");
    EXPECT_EQ(san_of(start, "e2e4"), "e4");

    const Board pawns = board_at("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
    EXPECT_EQ(san_of(pawns, "e4d5"), "exd5");

    const Board promote = board_at("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_EQ(san_of(promote, "e7d8q"), "exd8=Q+");
    EXPECT_EQ(san_of(promote, "e7d8n"), "exd8=N");

    const Board castle = board_at("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_EQ(san_of(castle, "e1g1"), "O-O");
    EXPECT_EQ(san_of(castle, "e1c1"), "O-O-O");
    EXPECT_EQ(san_of(board_at("5k2/8/8/8/8/8/8/4K2R w K - 0 1"), "e1g1"), "O-O+");

    const Board rook = board_at("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    EXPECT_EQ(san_of(rook, "a1a8"), "Ra8+");
    EXPECT_EQ(san_of(rook, "a1a7"), "Ra7");

    Board fools_mate;
    for (const char* uci : {"f2f3", "e7e5", "g2g4"}) fools_mate.do_move(parse_uci(fools_mate, uci));
    EXPECT_EQ(san_of(fools_mate, "d8h4"), "Qh4#");

    Board en_passant = board_at("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    EXPECT_EQ(san_of(en_passant, "e5d6"), "exd6");

    EXPECT_EQ(to_san(start, Move(SQ_E2, SQ_E5)), "") << "an illegal move has no SAN";
}

TEST(Notation, DisambiguatesByFileRankOrBoth) {
    const Board knights = board_at("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    EXPECT_EQ(san_of(knights, "b1d2"), "Nbd2");
    EXPECT_EQ(san_of(knights, "f3d2"), "Nfd2");
    EXPECT_EQ(san_of(knights, "f3d4"), "Nd4");

    const Board rooks = board_at("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    EXPECT_EQ(san_of(rooks, "a1a3"), "R1a3");
    EXPECT_EQ(san_of(rooks, "a5a3"), "R5a3");

    const Board queens = board_at("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1");
    EXPECT_EQ(san_of(queens, "a1b2"), "Qa1b2");
    EXPECT_EQ(san_of(queens, "c1b2"), "Qcb2");
    EXPECT_EQ(san_of(queens, "a3b2"), "Q3b2");
}

TEST(Notation, ParsesSanTolerantlyButRejectsAmbiguityAndIllegalMoves) {
    const Board start;
    for (const char* text : {"Nf3", "Nf3+", "Nf3#", "Nf3!", "Nf3?", "Nf3!?", "Ngf3", "Ng1f3"})
        EXPECT_EQ(parse_san(start, text), Move(SQ_G1, SQ_F3)) << text;
    EXPECT_EQ(parse_san(start, "e4"), Move(SQ_E2, SQ_E4));
    for (const char* bad :
         {"", "Nf4", "e5", "Ke2", "Nxf3", "xyz", "Pe4", "N", "O-O", "exd3", "Zf3"})
        EXPECT_FALSE(parse_san(start, bad)) << bad;

    const Board castle = board_at("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_EQ(parse_san(castle, "O-O"), Move(SQ_E1, SQ_G1, Move::CASTLING));
    EXPECT_EQ(parse_san(castle, "0-0"), Move(SQ_E1, SQ_G1, Move::CASTLING));
    EXPECT_EQ(parse_san(castle, "O-O-O"), Move(SQ_E1, SQ_C1, Move::CASTLING));
    EXPECT_EQ(parse_san(castle, "0-0-0+"), Move(SQ_E1, SQ_C1, Move::CASTLING));

    const Board knights = board_at("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    EXPECT_FALSE(parse_san(knights, "Nd2")) << "ambiguous";
    EXPECT_EQ(parse_san(knights, "Nbd2"), Move(SQ_B1, SQ_D2));
    EXPECT_EQ(parse_san(knights, "N1d2"), Move(SQ_B1, SQ_D2));

    const Board queens = board_at("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1");
    EXPECT_FALSE(parse_san(queens, "Qb2"));
    EXPECT_FALSE(parse_san(queens, "Qab2")) << "two queens on the a-file";
    EXPECT_FALSE(parse_san(queens, "Q1b2")) << "two queens on the first rank";
    EXPECT_EQ(parse_san(queens, "Qa1b2"), Move(SQ_A1, SQ_B2));

    const Board promote = board_at("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_EQ(parse_san(promote, "exd8=Q+"), Move(SQ_E7, SQ_D8, Move::PROMOTION, QUEEN));
    EXPECT_EQ(parse_san(promote, "exd8N"), Move(SQ_E7, SQ_D8, Move::PROMOTION, KNIGHT));
    EXPECT_EQ(parse_san(promote, "exd8=r"), Move(SQ_E7, SQ_D8, Move::PROMOTION, ROOK));
    EXPECT_FALSE(parse_san(promote, "exd8")) << "a promotion needs its piece";
    EXPECT_FALSE(parse_san(promote, "exd8=K"));
    EXPECT_FALSE(parse_san(promote, "exd8=P"));
}

TEST(Notation, EveryLegalMoveRoundTripsThroughSanAndUci) {
    std::mt19937_64 rng(5);
    std::size_t checked = 0;
    for (const std::string& fen : samples::sample_fens()) {
        Board board = board_at(fen);
        for (int ply = 0; ply < 60; ++ply) {
            std::set<std::string> sans;
            for (Move m : MoveList<GenType::All>(board)) {
                const std::string san = to_san(board, m);
                EXPECT_EQ(parse_san(board, san), m) << board.fen() << " " << san;
                EXPECT_EQ(parse_uci(board, to_uci(m)), m) << board.fen() << " " << to_uci(m);
                EXPECT_TRUE(sans.insert(san).second) << "two moves written " << san;
                ++checked;
            }
            const Move m = samples::random_move(board, rng);
            if (!m) break;
            board.do_move(m);
        }
    }
    EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace sparring
