// FEN reading and writing: exact round trips, the en passant rule, and a clear error for
// every kind of malformed FEN, with the board left as it was.
#include <gtest/gtest.h>

#include "engine/board.h"
#include "engine_samples.h"

namespace sparring {
namespace {

TEST(Fen, RoundTripsExactly) {
    std::vector<std::string> fens = samples::sample_fens();
    fens.insert(fens.end(), {
                                std::string(START_FEN),
                                "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
                                "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3",
                                "4k3/8/8/8/8/8/8/4K2R w K - 49 120",
                                "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40",
                                "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
                                "8/8/8/8/8/8/6k1/4K2R b K - 150 9999",
                            });
    for (const std::string& fen : fens) {
        Board board;
        std::string error;
        ASSERT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
        EXPECT_EQ(board.fen(), fen);
        EXPECT_EQ(board.hash(), board.compute_hash());
    }
}

TEST(Fen, FourFieldsMeanClocksZeroAndOne) {
    Board board;
    ASSERT_TRUE(board.set_fen("r3k2r/8/8/8/8/8/8/R3K2R b Kq -"));
    EXPECT_EQ(board.fen(), "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1");
    EXPECT_EQ(board.halfmove_clock(), 0);
    EXPECT_EQ(board.fullmove_number(), 1);
    EXPECT_EQ(board.game_ply(), 1);
}

TEST(Fen, ToleratesExtraWhitespace) {
    Board board;
    ASSERT_TRUE(board.set_fen("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq - 0 1 \n"));
    EXPECT_EQ(board.fen(), START_FEN);
}

TEST(Fen, DropsAnEnPassantSquareNoPawnCanLegallyUse) {
    struct Case {
        const char* given;
        const char* written;
    };
    const std::vector<Case> cases = {
        // No white pawn stands next to e5.
        {"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2",
         "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2"},
        // The only capture would expose the king on a5 to the rook on h5.
        {"7k/8/8/KPp4r/8/8/8/8 w - c6 0 2", "7k/8/8/KPp4r/8/8/8/8 w - - 0 2"},
    };
    for (const Case& c : cases) {
        Board given, written;
        ASSERT_TRUE(given.set_fen(c.given));
        ASSERT_TRUE(written.set_fen(c.written));
        EXPECT_EQ(given.fen(), c.written);
        EXPECT_EQ(given.en_passant_position(), 0u);
        EXPECT_EQ(given.hash(), written.hash()) << "equal positions must hash alike";
    }
}

struct BadFen {
    const char* fen;
    const char* problem;  // a part of the error message that names the problem
};

TEST(Fen, RejectsMalformedFenWithAClearErrorAndLeavesTheBoardUnchanged) {
    const std::vector<BadFen> cases = {
        {"", "0 fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "3 fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "5 fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x", "7 fields"},
        {"rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad piece letter 'X'"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "bad piece letter '9'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0 w KQkq - 0 1", "bad piece letter '0'"},
        {"rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has 7 files"},
        {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has more than 8"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank 1 has 7 files"},
        {"rnbqkbnr/pppppppp/8/8/44/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", "more than 8 ranks"},
        {"rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks; expected 8"},
        {"rnbqkbnr/pppppppp/8/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 ranks"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "white has 0 kings"},
        {"rnbqkbnr/pppppppp/8/8/8/3k4/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "black has 2 kings"},
        {"4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn on a1"},
        {"3pk3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on d8"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", "side to move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "bad castling field"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w qkQK - 0 1", "bad castling field"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1", "bad castling field"},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling right 'K' needs the white king on e1"},
        {"r3k3/8/8/8/8/8/8/3K3R w Q - 0 1", "castling right 'Q' needs the white king on e1"},
        {"1r2k2r/8/8/8/8/8/8/4K3 w q - 0 1", "black rook on a8"},
        {"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 2", "not '-' or a square"},
        {"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq E6 0 2", "not '-' or a square"},
        {"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 2", "wrong rank"},
        {"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2", "black pawn"},
        {"rnbqkbnr/pppppppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", "black pawn"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock '-1'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock 'x'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 151 1", "halfmove clock '151'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number '0'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1x", "fullmove number '1x'"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999", "fullmove"},
        {"4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "side not to move (black) is in check"},
        {"8/8/8/3kK3/8/8/8/8 b - - 0 1", "side not to move (white) is in check"},
    };
    Board board;
    const char* kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    ASSERT_TRUE(board.set_fen(kiwipete));
    ASSERT_TRUE(board.move(square_bb(SQ_E1), square_bb(SQ_G1)));
    const std::string fen = board.fen();
    const Key hash = board.hash();
    for (const BadFen& c : cases) {
        std::string error;
        EXPECT_FALSE(board.set_fen(c.fen, &error)) << c.fen;
        EXPECT_NE(error.find(c.problem), std::string::npos)
            << "FEN: " << c.fen << "\nerror: " << error << "\nexpected to mention: " << c.problem;
        EXPECT_EQ(board.fen(), fen);
        EXPECT_EQ(board.hash(), hash);
        EXPECT_EQ(board.moves().size(), 1u);
        EXPECT_FALSE(board.set_fen(c.fen)) << "a null error pointer is fine too";
    }
}

}  // namespace
}  // namespace sparring
