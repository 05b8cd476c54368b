// Data shared by the training tests: positions from random legal games, parameter sets drawn
// from the bounds, and results drawn from a known evaluation through the Texel sigmoid.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/board.h"
#include "engine/evaluate.h"
#include "engine/movegen.h"
#include "engine/params.h"
#include "training/labelled_position.h"
#include "training/texel.h"

namespace sparring::training::samples {

// Returns every position after the first opening_plies of random legal games from the start
// position, each labelled with a result drawn at random.
inline std::vector<LabelledPosition> random_game_positions(std::uint64_t seed, int games,
                                                           int max_plies, int opening_plies = 0) {
    std::mt19937_64 rng(seed);
    std::vector<LabelledPosition> positions;
    for (int g = 0; g < games; ++g) {
        Board board;
        for (int ply = 0; ply < max_plies; ++ply) {
            const MoveList<> moves(board);
            if (moves.size() == 0) break;
            board.do_move(*(moves.begin() + rng() % moves.size()));
            if (ply < opening_plies) continue;
            const auto packed = pack_position(board);
            EXPECT_TRUE(packed.has_value());
            positions.push_back({*packed, Outcome(rng() % 3), std::nullopt});
        }
    }
    return positions;
}

// Returns a parameter set with every value drawn uniformly from its bounds.
inline ParamSet random_params(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ParamSet params;
    for (const ParamSpec& spec : param_registry())
        EXPECT_TRUE(
            params.set(spec.name, std::uniform_int_distribution<int>(spec.min, spec.max)(rng)));
    return params;
}

// Returns white's evaluation of a packed position by the engine's evaluator.
inline int white_evaluation(const PackedPosition& packed, const Evaluator& evaluator) {
    Board board;
    EXPECT_TRUE(unpack_position(packed, &board));
    board.set_psq_table(&evaluator.psq_table());
    const int eval = evaluator.evaluate(board);
    return board.side() == WHITE ? eval : -eval;
}

// Relabels every position with a result whose expectation is texel_sigmoid(eval, k) for the
// evaluation by truth: a draw with probability min(p, 1 - p), otherwise a win or a loss.
inline void draw_results(std::vector<LabelledPosition>* positions, const ParamSet& truth, double k,
                         std::uint64_t seed) {
    const Evaluator evaluator(truth);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (LabelledPosition& p : *positions) {
        const double expected = texel_sigmoid(white_evaluation(p.position, evaluator), k);
        const double draw = std::min(expected, 1 - expected);
        const double u = uniform(rng);
        p.result = u < expected - draw / 2   ? Outcome::Win
                   : u < expected + draw / 2 ? Outcome::Draw
                                             : Outcome::Loss;
    }
}

}  // namespace sparring::training::samples
