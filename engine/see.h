// Static exchange evaluation: the material outcome of the capture sequence on one square.
#pragma once

#include "engine/board.h"

namespace sparring {

// Piece values used to order and prune moves (independent of the evaluation parameters).
inline constexpr int SEE_VALUE[PIECE_TYPE_NB] = {0, 100, 320, 330, 500, 950, 0};

// Returns whether the exchange started by move m wins at least threshold centipawns for
// the side to move, both sides recapturing with their least valuable attacker.
bool see_ge(const Board& board, Move m, int threshold);

}  // namespace sparring
