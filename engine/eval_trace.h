// The evaluation as a linear function of the parameters, for the Texel tuner: the
// coefficient of every parameter in a position's middle-game and end-game sums.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/board.h"
#include "engine/params.h"

namespace sparring {

inline constexpr int PHASE_MAX = 24;  // knights and bishops 1, rooks 2, queens 4
// Evaluations are clamped to +-EVAL_LIMIT, far below the search's mate scores; only absurd
// parameter values in absurd positions reach it.
inline constexpr int EVAL_LIMIT = 20000;

// Returns the side to move's evaluation from white's middle- and end-game sums and the phase.
inline int blend_phases(int mg, int eg, int phase, Color side_to_move) {
    const int blended = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    const int white = std::clamp(blended, -EVAL_LIMIT, EVAL_LIMIT);
    return side_to_move == WHITE ? white : -white;
}

// What the evaluation of one position is made of, independent of the parameter values:
// evaluate() == blend_phases(sum mg[i] * value[i], sum eg[i] * value[i], phase, side_to_move),
// linear in the values up to the EVAL_LIMIT clamp.
struct EvalTrace {
    std::vector<int> mg;  // per registry parameter: its coefficient in the middle-game sum
    std::vector<int> eg;  // per registry parameter: its coefficient in the end-game sum
    int phase = 0;        // 0 (kings and pawns only) .. PHASE_MAX
    Color side_to_move = WHITE;
};

// Returns the coefficients of every parameter in the evaluation of board (white minus black).
EvalTrace trace_evaluation(const Board& board);
// Returns the evaluation that a trace gives with the parameter values of params.
int evaluate_trace(const EvalTrace& trace, const ParamSet& params);

}  // namespace sparring
