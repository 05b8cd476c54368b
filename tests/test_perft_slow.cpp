// Perft node counts on the six wiki positions at the deepest depths CI can afford.
#include <gtest/gtest.h>

#include "engine/movegen.h"
#include "engine_samples.h"

namespace sparring {
namespace {

using samples::PerftCase;

class DeepPerft : public ::testing::TestWithParam<PerftCase> {};

TEST_P(DeepPerft, MatchesReferenceCountAtTheDeepestDepth) {
    const PerftCase& c = GetParam();
    Board board;
    ASSERT_TRUE(board.set_fen(c.fen));
    const int depth = static_cast<int>(c.nodes.size());
    EXPECT_EQ(perft(board, depth), c.nodes.back()) << c.fen << " depth " << depth;
}

INSTANTIATE_TEST_SUITE_P(PerftSlow, DeepPerft, ::testing::ValuesIn(samples::WIKI_POSITIONS),
                         [](const auto& param) { return std::string(param.param.name); });

}  // namespace
}  // namespace sparring
