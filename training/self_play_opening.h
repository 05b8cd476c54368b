// How local data generation sets up its games: the options of self-play, and the opening of
// game number g (a book opening plus random plies), which depends only on the options and g.
// Apart from the games themselves (self_play.h) so the coordinator needs no match code to
// hand out a generation run's openings.
#pragma once

#include <cstdint>
#include <vector>

#include "common/opening.h"
#include "engine/params.h"
#include "training/position_filter.h"

namespace sparring::training {

struct SelfPlayOptions {
    ParamSet params;
    std::uint64_t nodes = 5000;    // per move
    std::vector<Opening> book;     // empty: the start position
    int random_plies = 2;          // random legal moves played after the book opening
    std::uint64_t seed = 1;        // with the game number, picks opening and random plies
    std::uint64_t first_game = 0;  // number of the first game to play
    int games = 100;
    int max_plies = 400;  // a game this long is a draw
    int threads = 1;      // games played at once
    int hash_mb = 16;     // per engine
    FilterOptions filters;
};

// Returns the opening of game number game: a book opening (or the start position) followed
// by random_plies random legal moves that leave the game unfinished.
Opening self_play_opening(const SelfPlayOptions& options, std::uint64_t game);

}  // namespace sparring::training
