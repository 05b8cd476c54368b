// Perft node counts on the reference positions at quick depths, and the divide mode.
#include <gtest/gtest.h>

#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine_samples.h"

namespace sparring {
namespace {

using samples::PerftCase;
using samples::RuleCase;

class WikiPerft : public ::testing::TestWithParam<PerftCase> {};

TEST_P(WikiPerft, MatchesReferenceCountsAtEveryQuickDepth) {
    const PerftCase& c = GetParam();
    Board board;
    ASSERT_TRUE(board.set_fen(c.fen));
    for (int depth = 1; depth <= c.quick_depth; ++depth)
        EXPECT_EQ(perft(board, depth), c.nodes[depth - 1]) << c.fen << " depth " << depth;
    EXPECT_EQ(board.fen(), c.fen) << "perft must leave the board as it found it";
}

INSTANTIATE_TEST_SUITE_P(Perft, WikiPerft, ::testing::ValuesIn(samples::WIKI_POSITIONS),
                         [](const auto& param) { return std::string(param.param.name); });

class RulePerft : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RulePerft, MatchesReferenceCount) {
    const RuleCase& c = GetParam();
    Board board;
    ASSERT_TRUE(board.set_fen(c.fen));
    EXPECT_EQ(perft(board, c.depth), c.nodes) << c.rule << ": " << c.fen;
}

INSTANTIATE_TEST_SUITE_P(Perft, RulePerft, ::testing::ValuesIn(samples::RULE_POSITIONS),
                         [](const auto& param) {
                             std::string name = param.param.rule;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

TEST(Perft, DepthZeroIsOneNode) {
    Board board;
    EXPECT_EQ(perft(board, 0), 1u);
}

TEST(Perft, DivideSplitsTheCountByRootMove) {
    for (const PerftCase& c : samples::WIKI_POSITIONS) {
        Board board;
        ASSERT_TRUE(board.set_fen(c.fen));
        const auto divided = perft_divide(board, 3);
        EXPECT_EQ(divided.size(), c.nodes[0]) << c.fen;
        std::uint64_t total = 0;
        for (const auto& [move, count] : divided) {
            total += count;
            Board after;
            ASSERT_TRUE(after.set_fen(c.fen));
            after.do_move(move);
            EXPECT_EQ(count, perft(after, 2)) << c.fen << " " << to_uci(move);
        }
        EXPECT_EQ(total, c.nodes[2]) << c.fen;
    }
}

TEST(Perft, DivideAtDepthOneGivesOneNodePerMove) {
    Board board;
    const auto divided = perft_divide(board, 1);
    ASSERT_EQ(divided.size(), 20u);
    for (const auto& [move, count] : divided) EXPECT_EQ(count, 1u) << to_uci(move);
}

}  // namespace
}  // namespace sparring
