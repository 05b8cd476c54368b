// The long differential run (label slow): many more random games with deeper perft samples,
// and whole move trees of the wiki and special-move positions.
#include <gtest/gtest.h>

#include "differential/differential.h"
#include "differential/positions.h"

namespace sparring::differential {
namespace {

TEST(DifferentialSlow, ManyRandomGames) {
    Tally tally;
    std::uint64_t seed = 1000;
    const GameOptions options = {.games = 300,
                                 .max_plies = 120,
                                 .perft_every = 50,
                                 .perft_depth = 3,
                                 .deep_perft_every = 1000};
    for (auto* list : {&WIKI_POSITIONS, &SPECIAL_MOVE_POSITIONS})
        for (std::string_view fen : *list) {
            GameOptions seeded = options;
            seeded.seed = ++seed;
            tally += play_random_games(fen, seeded);
        }
    expect_agreement(tally, 300000);
}

TEST(DifferentialSlow, WholeTreesOfStartPositions) {
    Tally tally;
    for (std::string_view fen : WIKI_POSITIONS) tally += compare_tree(fen, 3);
    for (std::string_view fen : SPECIAL_MOVE_POSITIONS) tally += compare_tree(fen, 3);
    expect_agreement(tally, 300000);
}

}  // namespace
}  // namespace sparring::differential
