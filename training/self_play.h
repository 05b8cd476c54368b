// Local data generation: the built-in engine plays itself at a fixed node count from book
// openings plus random plies (self_play_opening.h), and every game yields labelled positions
// with search scores. Game g depends only on the options and g, so any range of games can be
// replayed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/opening.h"
#include "training/labelled_position.h"
#include "training/position_filter.h"
#include "training/self_play_opening.h"

namespace sparring::training {

struct SelfPlayResult {
    int games = 0;                            // finished games
    std::vector<LabelledPosition> positions;  // kept positions, in game order
    FilterCounts counts;
};

// A game to play: its number and its opening (what self_play_opening gives for the number).
struct SelfPlayJob {
    std::uint64_t game = 0;
    Opening opening;
};

// One finished game: its number, result and kept positions (in the order played).
struct SelfPlayGame {
    std::uint64_t game = 0;
    Outcome result = Outcome::Draw;
    std::vector<LabelledPosition> positions;
    FilterCounts counts;
};

// Plays the games on options.threads threads; on_game (optional) is called after each game,
// one call at a time, with the number of games and positions so far. Once stop becomes true
// no game starts, unfinished games are dropped and the finished ones returned.
SelfPlayResult play_self_play(const SelfPlayOptions& options,
                              const std::function<void(int games, std::size_t positions)>& on_game,
                              const std::atomic<bool>& stop);
// Plays the jobs as play_self_play plays its games (options.first_game and options.games
// aside) and hands each finished game to on_game, one call at a time, as games finish: the
// coordinator's workers report games as they come. Returns the number of finished games.
int play_self_play_games(const SelfPlayOptions& options, std::span<const SelfPlayJob> jobs,
                         const std::function<void(SelfPlayGame&&)>& on_game,
                         const std::atomic<bool>& stop);

}  // namespace sparring::training
