// A training example: a position, the result of the game it was played in and, when known,
// the search score it got there.
#pragma once

#include <cstdint>
#include <optional>

#include "training/packed_position.h"

namespace sparring::training {

// The result of the game, from white's point of view.
enum class GameResult : std::uint8_t { BlackWins, Draw, WhiteWins };

struct LabelledPosition {
    PackedPosition position;
    GameResult result = GameResult::Draw;
    std::optional<std::int16_t> score;  // centipawns from white's point of view
};

// Returns white's score in the game: 0, 0.5 or 1.
constexpr double white_score(GameResult result) {
    return 0.5 * static_cast<int>(result);
}

}  // namespace sparring::training
