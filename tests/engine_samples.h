// Positions and helpers shared by the engine-core tests: the perft reference positions
// (node counts from the chessprogramming wiki and Martin Sedlak's list, checked against
// Stockfish 15.1) and random games for make/unmake, hashing and notation tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "engine/board.h"
#include "engine/lookup_tables.h"
#include "engine/movegen.h"

namespace sparring::samples {

// Returns a board set to fen, failing the test if the FEN is rejected.
inline Board board_at(const std::string& fen) {
    Board board;
    std::string error;
    EXPECT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
    return board;
}

// Returns the mask of a named square ("e4").
inline Bitboard at(const char* name) {
    return *lookup_tables::mask_from_name(name);
}

struct PerftCase {
    const char* name;
    const char* fen;
    int quick_depth;                   // the deepest depth the quick suite runs
    std::vector<std::uint64_t> nodes;  // nodes[d - 1] is perft(d), up to the slow suite's depth
};

// The six chessprogramming-wiki positions.
inline const std::vector<PerftCase> WIKI_POSITIONS = {
    {"Initial",
     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     5,
     {20, 400, 8902, 197281, 4865609, 119060324}},
    {"Kiwipete",
     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     4,
     {48, 2039, 97862, 4085603, 193690690}},
    {"Position3",
     "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
     6,
     {14, 191, 2812, 43238, 674624, 11030083, 178633661}},
    {"Position4",
     "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
     4,
     {6, 264, 9467, 422333, 15833292}},
    {"Position5",
     "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
     4,
     {44, 1486, 62379, 2103487, 89941194}},
    {"Position6",
     "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
     4,
     {46, 2079, 89890, 3894594, 164075551}},
};

// Positions built around one rule each (en passant pins, castling, promotions, mates),
// with one reference count at the given depth.
struct RuleCase {
    const char* rule;
    const char* fen;
    int depth;
    std::uint64_t nodes;
};

inline const std::vector<RuleCase> RULE_POSITIONS = {
    {"illegal en passant (rank pin)", "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},
    {"illegal en passant (diagonal pin)", "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},
    {"en passant gives check", "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},
    {"short castling gives check", "5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},
    {"long castling gives check", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},
    {"castling rights", "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206},
    {"castling prevented", "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},
    {"promote out of check", "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},
    {"discovered check", "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},
    {"promote to give check", "4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},
    {"underpromote to give check", "8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},
    {"self stalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},
    {"stalemate and checkmate", "8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},
    {"stalemate and checkmate 2", "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},
};

// Name the cases in test output (GoogleTest finds these by argument-dependent lookup).
inline void PrintTo(const PerftCase& c, std::ostream* out) {
    *out << c.name;
}
inline void PrintTo(const RuleCase& c, std::ostream* out) {
    *out << c.rule;
}

// Returns the FENs of every sample position, wiki and rule positions together.
inline std::vector<std::string> sample_fens() {
    std::vector<std::string> fens;
    for (const PerftCase& c : WIKI_POSITIONS) fens.push_back(c.fen);
    for (const RuleCase& c : RULE_POSITIONS) fens.push_back(c.fen);
    return fens;
}

// Returns a legal move chosen at random, preferring captures, checks and promotions half of
// the time so that games reach the rarer rules; Move::none() when there is none.
inline Move random_move(const Board& board, std::mt19937_64& rng) {
    MoveList<GenType::All> all(board);
    if (all.size() == 0) return Move::none();
    std::vector<Move> sharp;
    for (Move m : all)
        if (board.is_capture(m) || m.kind() != Move::NORMAL || board.gives_check(m))
            sharp.push_back(m);
    if (!sharp.empty() && rng() % 2 == 0) return sharp[rng() % sharp.size()];
    return *(all.begin() + rng() % all.size());
}

}  // namespace sparring::samples
