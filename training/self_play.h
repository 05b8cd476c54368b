// Local data generation: the built-in engine plays itself at a fixed node count from book
// openings plus random plies, and every game yields labelled positions with search scores.
// Game g depends only on the options and g, so any range of games can be replayed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/params.h"
#include "match/opening_book.h"
#include "training/labelled_position.h"
#include "training/position_filter.h"

namespace sparring::training {

struct SelfPlayOptions {
    ParamSet params;
    std::uint64_t nodes = 5000;        // per move
    std::vector<match::Opening> book;  // empty: the start position
    int random_plies = 2;              // random legal moves played after the book opening
    std::uint64_t seed = 1;            // with the game number, picks opening and random plies
    std::uint64_t first_game = 0;      // number of the first game to play
    int games = 100;
    int max_plies = 400;  // a game this long is a draw
    int threads = 1;      // games played at once
    int hash_mb = 16;     // per engine
    FilterOptions filters;
};

struct SelfPlayResult {
    int games = 0;                            // finished games
    std::vector<LabelledPosition> positions;  // kept positions, in game order
    FilterCounts counts;
};

// Returns the opening of game number game: a book opening (or the start position) followed
// by random_plies random legal moves that leave the game unfinished.
match::Opening self_play_opening(const SelfPlayOptions& options, std::uint64_t game);
// Plays the games on options.threads threads; on_game (optional) is called after each game,
// one call at a time, with the number of games and positions so far. Once stop becomes true
// no game starts, unfinished games are dropped and the finished ones returned.
SelfPlayResult play_self_play(const SelfPlayOptions& options,
                              const std::function<void(int games, std::size_t positions)>& on_game,
                              const std::atomic<bool>& stop);

}  // namespace sparring::training
