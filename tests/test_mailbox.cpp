// Tests of the 12x12 mailbox oracle on its own: numbering, type codes, FEN, rules, perft.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mailbox/mailbox.h"

namespace sparring::mailbox {
namespace {

// Parses a FEN that the test knows to be valid.
Position position(const std::string& fen) {
    std::string error;
    const std::optional<Position> pos = parse_fen(fen, &error);
    EXPECT_TRUE(pos.has_value()) << fen << ": " << error;
    return pos.value_or(Position{});
}

// Returns whether the position's legal moves include the UCI move.
bool has_move(const Position& pos, const std::string& uci) {
    const std::vector<std::string> moves = legal_moves_uci(pos);
    return std::find(moves.begin(), moves.end(), uci) != moves.end();
}

// Plays the legal move written in UCI and returns the FEN after it.
std::string fen_after(const Position& pos, const std::string& uci) {
    for (const Move& move : legal_moves(pos))
        if (to_uci(move) == uci) return to_fen(make_move(pos, move));
    ADD_FAILURE() << uci << " is not legal in " << to_fen(pos);
    return "";
}

TEST(MailboxSquares, NumberingFollowsTheSeed) {
    EXPECT_EQ(mailbox_square(0, 0), 26);
    EXPECT_EQ(mailbox_square(7, 7), 117);
    EXPECT_EQ(square_from_name("a1"), 26);
    EXPECT_EQ(square_from_name("h8"), 117);
    EXPECT_EQ(square_name(26), "a1");
    EXPECT_EQ(square_name(117), "h8");
    EXPECT_EQ(square_from_name("e4"), 12 * 5 + 6);
}

TEST(MailboxSquares, BorderIsOffBoard) {
    int on_board = 0;
    for (int sq = 0; sq < SQUARE_COUNT; ++sq) on_board += is_on_board(sq);
    EXPECT_EQ(on_board, 64);
    for (int sq : {0, 11, 23, 24, 25, 34, 35, 118, 119, 128, 143, -1, 144}) {
        EXPECT_FALSE(is_on_board(sq)) << sq;
        EXPECT_EQ(to_bitboard_index(sq), -1) << sq;
        EXPECT_EQ(square_name(sq), "-") << sq;
    }
    const Position start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    for (int sq = 0; sq < SQUARE_COUNT; ++sq)
        EXPECT_EQ(start.cells[sq] == OFF_BOARD, !is_on_board(sq)) << sq;
}

TEST(MailboxSquares, BitboardIndices) {
    EXPECT_EQ(to_bitboard_index(26), 0);
    EXPECT_EQ(to_bitboard_index(square_from_name("c2")), 10);
    EXPECT_EQ(to_bitboard_index(square_from_name("e5")), 36);
    EXPECT_EQ(to_bitboard_index(117), 63);
    EXPECT_EQ(from_bitboard_index(0), 26);
    EXPECT_EQ(from_bitboard_index(10), 40);
    EXPECT_EQ(from_bitboard_index(36), 78);
    EXPECT_EQ(from_bitboard_index(63), 117);
    EXPECT_EQ(from_bitboard_index(64), NO_SQUARE);
    EXPECT_EQ(from_bitboard_index(-1), NO_SQUARE);
    for (int index = 0; index < 64; ++index)
        EXPECT_EQ(to_bitboard_index(from_bitboard_index(index)), index);
}

TEST(MailboxPieces, TypeCodesAndFidePlacement) {
    EXPECT_EQ(KING, 10);
    EXPECT_EQ(QUEEN, 8);
    EXPECT_EQ(ROOK, 5);
    EXPECT_EQ(BISHOP, 4);
    EXPECT_EQ(KNIGHT, 3);
    EXPECT_EQ(PAWN, 1);
    const Position start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    const std::vector<int> back_rank = {ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK};
    for (int file = 0; file < 8; ++file) {
        EXPECT_EQ(start.cells[mailbox_square(file, 0)], back_rank[file]) << file;
        EXPECT_EQ(start.cells[mailbox_square(file, 1)], PAWN) << file;
        EXPECT_EQ(start.cells[mailbox_square(file, 6)], -PAWN) << file;
        EXPECT_EQ(start.cells[mailbox_square(file, 7)], -back_rank[file]) << file;
    }
    EXPECT_EQ(start.cells[29], QUEEN);  // d1: FIDE, not the seed's diagram
    EXPECT_EQ(start.cells[30], KING);   // e1
}

TEST(MailboxFen, RoundTrips) {
    for (const char* fen : {
             "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
             "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
             "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
             "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
             "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
         })
        EXPECT_EQ(to_fen(position(fen)), fen);
}

TEST(MailboxFen, RejectsMalformedInput) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "fields"},
        {"garbage", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'9'"},
        {"rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8 files"},
        {"rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8 files"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"},
        {"4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", "more than 8 ranks"},
        {"rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"},
        {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black king"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w KQkq - 0 1", "white king"},
        {"rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1", "pawn"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1", "castling"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KX - 0 1", "castling"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", "en passant"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en passant"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -3 1", "half-move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "full-move"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "full-move"},
        {"4k3/8/8/8/8/8/8/4K2R w - - 0 1", ""},
        {"4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "not to move is in check"},
    };
    for (const auto& [fen, expected] : cases) {
        std::string error;
        const bool parsed = parse_fen(fen, &error).has_value();
        if (expected.empty()) {
            EXPECT_TRUE(parsed) << fen << ": " << error;
        } else {
            EXPECT_FALSE(parsed) << fen;
            EXPECT_NE(error.find(expected), std::string::npos) << fen << ": " << error;
        }
    }
}

TEST(MailboxRules, CastlingNeedsRightsEmptySquaresAndSafety) {
    const Position both = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_TRUE(has_move(both, "e1g1"));
    EXPECT_TRUE(has_move(both, "e1c1"));
    EXPECT_FALSE(has_move(position("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1"), "e1g1"));
    EXPECT_FALSE(has_move(position("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1"), "e1g1"));
    EXPECT_FALSE(has_move(position("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1"), "e1c1"));
    const Position through = position("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    EXPECT_FALSE(has_move(through, "e1g1"));
    EXPECT_TRUE(has_move(through, "e1c1"));
    EXPECT_FALSE(has_move(position("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1"), "e1g1"));
    const Position checked = position("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    EXPECT_FALSE(has_move(checked, "e1g1"));
    EXPECT_FALSE(has_move(checked, "e1c1"));
    EXPECT_TRUE(has_move(position("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), "e1c1"));
    EXPECT_FALSE(has_move(position("3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), "e1c1"));
    EXPECT_TRUE(has_move(position("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"), "e8c8"));
}

TEST(MailboxRules, MovesUpdateCastlingRightsAndRooks) {
    const Position pos = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    EXPECT_EQ(fen_after(pos, "e1g1"), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    EXPECT_EQ(fen_after(pos, "e1c1"), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    EXPECT_EQ(fen_after(pos, "h1h8"), "r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1");
    EXPECT_EQ(fen_after(pos, "a1a2"), "r3k2r/8/8/8/8/8/R7/4K2R b Kkq - 1 1");
}

TEST(MailboxRules, EnPassantTargetOnlyWhenCaptureIsLegal) {
    const Position start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    EXPECT_EQ(fen_after(start, "e2e4"),
              "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    const Position open = position("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    EXPECT_EQ(fen_after(open, "e2e4"), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    const Position after = position("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    EXPECT_EQ(fen_after(after, "d4e3"), "4k3/8/8/8/8/4p3/8/4K3 w - - 0 2");
    // Capturing would take both pawns off the fourth rank and expose the king to the rook.
    const Position pinned = position("8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1");
    EXPECT_EQ(fen_after(pinned, "e2e4"), "8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1");
}

TEST(MailboxRules, PromotionsToFourPieces) {
    const Position pos = position("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    for (const char* uci : {"a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"})
        EXPECT_TRUE(has_move(pos, uci)) << uci;
    EXPECT_FALSE(has_move(pos, "a7a8"));
    EXPECT_EQ(fen_after(pos, "a7b8n"), "1N2k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

TEST(MailboxRules, PinnedPieceAndCheckEvasions) {
    const Position pinned = position("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1");
    for (const std::string& uci : legal_moves_uci(pinned)) EXPECT_NE(uci.substr(0, 2), "e2");
    const Position checked = position("4k3/8/8/8/8/1N6/3P1P2/r3K3 w - - 0 1");
    EXPECT_TRUE(in_check(checked));
    EXPECT_EQ(legal_moves_uci(checked), std::vector<std::string>({"b3a1", "b3c1", "e1e2"}));
    const Position mated = position("4k3/8/8/8/8/8/3PPP2/r3K3 w - - 0 1");
    EXPECT_TRUE(in_check(mated));
    EXPECT_TRUE(legal_moves(mated).empty());
}

// Expects perft of fen at depths 1, 2, ... to give the published counts.
void expect_perft(const std::string& fen, const std::vector<std::uint64_t>& counts) {
    const Position pos = position(fen);
    for (std::size_t depth = 1; depth <= counts.size(); ++depth)
        EXPECT_EQ(perft(pos, static_cast<int>(depth)), counts[depth - 1]) << "depth " << depth;
}

TEST(MailboxPerft, Initial) {
    expect_perft("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                 {20, 400, 8902, 197281, 4865609});
}

TEST(MailboxPerft, Kiwipete) {
    expect_perft("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                 {48, 2039, 97862, 4085603});
}

TEST(MailboxPerft, Position3) {
    expect_perft("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {14, 191, 2812, 43238, 674624});
}

TEST(MailboxPerft, Position4) {
    expect_perft("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                 {6, 264, 9467, 422333});
}

TEST(MailboxPerft, Position5) {
    expect_perft("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                 {44, 1486, 62379, 2103487});
}

TEST(MailboxPerft, Position6) {
    expect_perft("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
                 {46, 2079, 89890, 3894594});
}

}  // namespace
}  // namespace sparring::mailbox
