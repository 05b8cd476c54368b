// Legal move generation: the generation kinds, the bulk count, and the rules one by one.
#include <gtest/gtest.h>

#include <set>

#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine_samples.h"

namespace sparring {
namespace {

// Returns the UCI names of the legal moves, sorted.
std::set<std::string> legal_uci(const Board& board) {
    std::set<std::string> names;
    for (Move m : MoveList<GenType::All>(board)) names.insert(to_uci(m));
    return names;
}

// Returns a board set to fen, failing the test if the FEN is rejected.
Board board_at(const std::string& fen) {
    Board board;
    std::string error;
    EXPECT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
    return board;
}

// Checks the invariants of one position: the kinds partition All, the count agrees, no
// move is listed twice, and every listed move is legal by playing it.
void check_generation(Board& board) {
    const MoveList<GenType::All> all(board);
    const MoveList<GenType::Captures> captures(board);
    const MoveList<GenType::Quiets> quiets(board);
    EXPECT_EQ(count_legal_moves(board), static_cast<int>(all.size())) << board.fen();
    EXPECT_EQ(captures.size() + quiets.size(), all.size()) << board.fen();
    std::set<std::uint16_t> seen;
    for (Move m : all) EXPECT_TRUE(seen.insert(m.raw()).second) << board.fen() << " " << to_uci(m);
    for (Move m : captures) {
        EXPECT_TRUE(all.contains(m));
        EXPECT_TRUE(board.is_capture(m) || m.kind() == Move::PROMOTION) << to_uci(m);
    }
    for (Move m : quiets) {
        EXPECT_TRUE(all.contains(m));
        EXPECT_FALSE(board.is_capture(m) || m.kind() == Move::PROMOTION) << to_uci(m);
    }
    const Color us = board.side();
    for (Move m : all) {
        board.do_move(m);
        EXPECT_FALSE(board.attackers_to(board.king_square(us), board.all_pieces()) &
                     board.pieces(~us))
            << "move leaves the king in check: " << to_uci(m);
        board.undo_move();
    }
}

TEST(MoveGen, KindsPartitionTheLegalMovesAndTheCountAgrees) {
    for (const std::string& fen : samples::sample_fens()) {
        Board board = board_at(fen);
        check_generation(board);
    }
}

TEST(MoveGen, InvariantsHoldThroughRandomGames) {
    std::mt19937_64 rng(2024);
    int positions = 0;
    for (const std::string& fen : samples::sample_fens()) {
        for (int game = 0; game < 5; ++game) {
            Board board = board_at(fen);
            for (int ply = 0; ply < 100; ++ply, ++positions) {
                check_generation(board);
                const Move m = samples::random_move(board, rng);
                if (!m) break;
                board.do_move(m);
            }
        }
    }
    EXPECT_GT(positions, 2000);
}

TEST(MoveGen, StartPositionHasTwentyMoves) {
    Board board;
    const std::set<std::string> expected = {"a2a3", "a2a4", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3",
                                            "d2d4", "e2e3", "e2e4", "f2f3", "f2f4", "g2g3", "g2g4",
                                            "h2h3", "h2h4", "b1a3", "b1c3", "g1f3", "g1h3"};
    EXPECT_EQ(legal_uci(board), expected);
    EXPECT_EQ(MoveList<GenType::Captures>(board).size(), 0u);
}

struct RuleSet {
    const char* rule;
    const char* fen;
    std::set<std::string> moves;  // every legal move, as Stockfish 15.1 lists them
};

TEST(MoveGen, GeneratesExactlyTheLegalMovesForEachRule) {
    const std::vector<RuleSet> cases = {
        {"double check allows only king moves",
         "4k3/8/5N2/8/8/8/8/4R1K1 b - - 0 1",
         {"e8d8", "e8f7", "e8f8"}},
        {"single check: block, or move the king, never castle",
         "4k3/8/8/8/1b6/8/8/RN2K3 w Q - 0 1",
         {"b1c3", "b1d2", "e1d1", "e1e2", "e1f1", "e1f2"}},
        {"a pinned knight cannot move",
         "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
         {"e1d1", "e1d2", "e1f1", "e1f2"}},
        {"a pinned rook moves along the pin",
         "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",
         {"e1d1", "e1d2", "e1f1", "e1f2", "e2e3", "e2e4", "e2e5", "e2e6", "e2e7"}},
        {"every promotion, pushing and capturing",
         "3r2k1/4P3/8/8/8/8/8/4K3 w - - 0 1",
         {"e7e8q", "e7e8r", "e7e8b", "e7e8n", "e7d8q", "e7d8r", "e7d8b", "e7d8n", "e1e2", "e1f1",
          "e1f2"}},
    };
    for (const RuleSet& c : cases) EXPECT_EQ(legal_uci(board_at(c.fen)), c.moves) << c.rule;
}

struct CastlingCase {
    const char* rule;
    const char* fen;
    bool short_castle;
    bool long_castle;
};

TEST(MoveGen, CastlesOnlyWhenPathIsEmptyAndKingNeverCrossesCheck) {
    const std::vector<CastlingCase> cases = {
        {"both castles", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", true, true},
        {"not through check (f1 attacked)", "r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1", false, true},
        {"not into check (g1 attacked)", "r3k1r1/8/8/8/8/8/8/R3K2R w KQq - 0 1", false, true},
        {"b1 attacked does not matter", "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1", true, true},
        {"not over a piece on b1", "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1", true, false},
        {"not out of check", "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1", false, false},
        {"not without the right", "r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1", true, false},
        {"black castles too", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", true, true},
    };
    for (const CastlingCase& c : cases) {
        const Board board = board_at(c.fen);
        const std::set<std::string> moves = legal_uci(board);
        const bool white = board.side() == WHITE;
        EXPECT_EQ(moves.count(white ? "e1g1" : "e8g8") == 1, c.short_castle) << c.rule;
        EXPECT_EQ(moves.count(white ? "e1c1" : "e8c8") == 1, c.long_castle) << c.rule;
    }
}

TEST(MoveGen, EnPassantThatExposesTheKingAlongTheRankIsNotGenerated) {
    Board pinned = board_at("8/2p5/8/KP5r/8/8/8/7k b - - 0 1");
    ASSERT_TRUE(pinned.move(square_bb(SQ_C7), square_bb(SQ_C5)));
    EXPECT_EQ(legal_uci(pinned).count("b5c6"), 0u);
    EXPECT_EQ(pinned.ep_square(), SQ_NONE);

    Board free = board_at("8/2p5/8/KP6/8/8/8/7k b - - 0 1");
    ASSERT_TRUE(free.move(square_bb(SQ_C7), square_bb(SQ_C5)));
    EXPECT_EQ(legal_uci(free).count("b5c6"), 1u);
    EXPECT_EQ(free.ep_square(), SQ_C6);
    EXPECT_TRUE(MoveList<GenType::Captures>(free).contains(Move(SQ_B5, SQ_C6, Move::EN_PASSANT)));
}

TEST(MoveGen, EnPassantCanCaptureTheCheckingPawn) {
    // After d7d5 the pawn on d5 checks the king on e4; exd6 removes it.
    Board board = board_at("8/3p4/8/4P3/4K3/8/8/7k b - - 0 1");
    ASSERT_TRUE(board.move(square_bb(SQ_D7), square_bb(SQ_D5)));
    ASSERT_TRUE(board.in_check());
    EXPECT_EQ(legal_uci(board).count("e5d6"), 1u);
}

}  // namespace
}  // namespace sparring
