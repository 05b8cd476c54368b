// Differential testing of the engine's move generator against the 12x12 mailbox oracle:
// random legal games biased toward special moves, and whole perft trees, compared position
// by position (move lists, check flags, FEN after each move, undo, perft counts).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::differential {

// How many random games to play from one position and how often to compare perft.
struct GameOptions {
    std::uint64_t seed = 1;
    int games = 10;
    int max_plies = 80;
    int perft_every = 10;        // compare perft at every n-th position of a game ...
    int perft_depth = 2;         // ... at this depth,
    int deep_perft_every = 100;  // and at every n-th position one ply deeper
};

// What a run compared, which special moves it played, and what differed.
struct Tally {
    std::uint64_t positions = 0;     // positions whose legal move lists were compared
    std::uint64_t moves_played = 0;  // moves played on both boards, FEN compared after each
    std::uint64_t perft_checks = 0;  // positions whose perft counts were compared
    std::uint64_t captures = 0;      // special moves played, by kind
    std::uint64_t checks = 0;
    std::uint64_t castlings = 0;
    std::uint64_t en_passants = 0;
    std::uint64_t promotions = 0;
    std::uint64_t mismatch_count = 0;
    std::vector<std::string> mismatches;  // the first few differences, each naming its FEN

    Tally& operator+=(const Tally& other);
};

// Plays random legal games from fen, choosing captures, checks, castling, en passant and
// promotions more often than other moves, and compares both generators all along.
Tally play_random_games(std::string_view fen, const GameOptions& options);
// Walks the legal move tree from fen down to depth on both generators, comparing every node.
Tally compare_tree(std::string_view fen, int depth);
// Returns a one-line account of what a tally compared.
std::string summary(const Tally& tally);
// Prints the summary, records it in the running GoogleTest case and fails the case on any
// difference or when fewer than min_positions were compared.
void expect_agreement(const Tally& tally, std::uint64_t min_positions);

}  // namespace sparring::differential
