// Static evaluation: a tapered middle-game/end-game sum of terms whose weights all come
// from a ParamSet (see params.h).
#pragma once

#include "engine/board.h"
#include "engine/params.h"

namespace sparring {

class Evaluator {
public:
    explicit Evaluator(const ParamSet& params);

    const ParamSet& params() const { return params_; }
    // The material + piece-square table to attach to a Board (Board::set_psq_table) so the
    // board keeps that part of the evaluation incrementally.
    const PsqTable& psq_table() const { return psq_table_; }
    // Returns the evaluation in centipawns from the side to move's point of view.
    // The board must have this evaluator's psq_table() attached.
    int evaluate(const Board& board) const;

private:
    ParamSet params_;
    PsqTable psq_table_{};
};

}  // namespace sparring
