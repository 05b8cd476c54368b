// The shared vocabulary: the one time-control syntax, openings and their order, game outcomes
// and the seeded generator, whose numbers stored runs depend on.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/opening.h"
#include "common/outcome.h"
#include "common/random.h"
#include "common/time_control.h"

namespace sparring {
namespace {

TEST(TimeControl, ReadsWhatTheCoordinatorStoresAndTheCliTakes) {
    for (const char* text : {"nodes=1000", "depth=8", "movetime=250", "10+0.1", "60+0", "2.05+0.01",
                             "0.001+0", "1000000+1000000"})
        EXPECT_EQ(parse_time_control(text)->to_string(), text);
    const auto clock = parse_time_control("2.5");
    ASSERT_TRUE(clock);
    EXPECT_EQ(clock->kind, TimeControl::Kind::Clock);
    EXPECT_EQ(clock->base_ms, 2500);
    EXPECT_EQ(clock->to_string(), "2.5+0");
    EXPECT_EQ(clock->pgn_tag(), "2.5");
}

TEST(TimeControl, RejectsEverythingElse) {
    for (const char* text : {"1.2345+0", "1e2", "10.", ".5", "1000001+0", "nodes=+5", "depth=0",
                             "movetime=0", "nodes=18446744073709551616", "10+0,1", "10 +1"}) {
        std::string error;
        EXPECT_FALSE(parse_time_control(text, &error)) << text;
        EXPECT_EQ(error.rfind("bad time control '" + std::string(text) + "': ", 0), 0u) << error;
    }
}

TEST(Random, IsTheReferenceSplitMix64) {
    SplitMix64 sequence(0);
    EXPECT_EQ(sequence.next(), 0xe220a8397b1dcdafULL);
    EXPECT_EQ(sequence.next(), 0x6e789e6aa1b965f4ULL);
    EXPECT_EQ(sequence.next(), 0x06c45d188009454fULL);
    EXPECT_EQ(splitmix64(0, 2), 0x06c45d188009454fULL);
    EXPECT_EQ(splitmix64(1, 5), 0xc34d0bff90150280ULL);
    EXPECT_EQ(splitmix64(3), SplitMix64(3).next());
}

TEST(OpeningOrder, KeepsTheOrderOfRunsAlreadyStored) {
    // The coordinator plays a random book in this order since its first release.
    EXPECT_EQ(opening_order(10, BookOrder::Random, 42),
              (std::vector<std::size_t>{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}));
    EXPECT_EQ(opening_order(10, BookOrder::Random, 7),
              (std::vector<std::size_t>{8, 1, 5, 9, 0, 4, 3, 2, 6, 7}));
    EXPECT_EQ(opening_order(3, BookOrder::Sequential, 42), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(opening_order(1, BookOrder::Random, 42), (std::vector<std::size_t>{0}));
}

TEST(Outcome, NamesAndPgnTokensRoundTrip) {
    for (Outcome o : {Outcome::Loss, Outcome::Draw, Outcome::Win}) {
        EXPECT_EQ(parse_outcome(outcome_name(o)), o);
        EXPECT_EQ(parse_pgn_result(pgn_result(o)), o);
        EXPECT_EQ(flipped(flipped(o)), o);
        EXPECT_EQ(half_points(o) + half_points(flipped(o)), 2);
    }
    EXPECT_EQ(pgn_result(Outcome::Win), "1-0");
    EXPECT_EQ(pgn_result(Outcome::Loss), "0-1");
    EXPECT_EQ(outcome_name(Outcome::Draw), "draw");
    // Position records and report digests store the value: loss 0, draw 1, win 2.
    EXPECT_EQ(half_points(Outcome::Win), 2);
    EXPECT_FALSE(parse_pgn_result("*"));
    EXPECT_FALSE(parse_outcome("Win"));
}

}  // namespace
}  // namespace sparring
