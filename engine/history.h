// Move-ordering memory learnt during search: history of quiet moves (from-to and after the
// previous moves), capture history, killer moves and counter moves. One per engine.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "engine/types.h"
#include "engine/value.h"

namespace sparring {

// History scores per (moved piece, destination), as seen after one earlier move.
using PieceToHistory = std::int16_t[PIECE_NB][SQUARE_NB];

inline constexpr int HISTORY_MAX = 16384;

// Moves a history entry towards +-HISTORY_MAX by bonus, slowing down as it nears the limit.
inline void update_history(std::int16_t& entry, int bonus) {
    int clamped = bonus > HISTORY_MAX ? HISTORY_MAX : bonus < -HISTORY_MAX ? -HISTORY_MAX : bonus;
    entry = static_cast<std::int16_t>(entry + clamped - entry * std::abs(clamped) / HISTORY_MAX);
}

struct SearchHistory {
    std::int16_t butterfly[COLOR_NB][SQUARE_NB][SQUARE_NB];
    std::int16_t capture[PIECE_NB][SQUARE_NB][PIECE_TYPE_NB];
    PieceToHistory continuation[PIECE_NB][SQUARE_NB];
    Move counter_moves[PIECE_NB][SQUARE_NB];
    Move killers[MAX_PLY + 1][2];

    // Forgets everything (a new game).
    void clear();
};

}  // namespace sparring
