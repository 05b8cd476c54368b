// The engine's move generator against the mailbox oracle on thousands of positions: random
// games biased toward special moves, and whole move trees of tricky positions.
#include <gtest/gtest.h>

#include "differential/differential.h"
#include "differential/positions.h"

namespace sparring::differential {
namespace {

TEST(Differential, RandomGamesFromStartPosition) {
    const Tally tally = play_random_games(WIKI_POSITIONS[0], {.seed = 1, .games = 200});
    expect_agreement(tally, 5000);
    EXPECT_GT(tally.castlings, 0u);
    EXPECT_GT(tally.en_passants, 0u);
    EXPECT_GT(tally.promotions, 0u);
}

TEST(Differential, RandomGamesFromWikiPositions) {
    Tally tally;
    std::uint64_t seed = 100;
    for (std::string_view fen : WIKI_POSITIONS)
        tally += play_random_games(fen, {.seed = ++seed, .games = 60});
    expect_agreement(tally, 10000);
    EXPECT_GT(tally.castlings, 0u);
    EXPECT_GT(tally.en_passants, 0u);
    EXPECT_GT(tally.promotions, 0u);
}

TEST(Differential, RandomGamesWithPromotionsAndEnPassant) {
    Tally tally;
    std::uint64_t seed = 200;
    for (std::string_view fen : SPECIAL_MOVE_POSITIONS)
        tally += play_random_games(fen, {.seed = ++seed, .games = 60, .max_plies = 60});
    expect_agreement(tally, 5000);
    EXPECT_GT(tally.en_passants, 100u);
    EXPECT_GT(tally.promotions, 100u);
}

TEST(Differential, WholeTreesOfTrickyPositions) {
    Tally tally;
    for (std::string_view fen : TRICKY_POSITIONS) tally += compare_tree(fen, 3);
    expect_agreement(tally, 50000);
}

}  // namespace
}  // namespace sparring::differential
