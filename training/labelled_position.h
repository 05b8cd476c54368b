// A training example: a position, the result of the game it was played in and, when known,
// the search score it got there.
#pragma once

#include <cstdint>
#include <optional>

#include "common/outcome.h"
#include "training/packed_position.h"

namespace sparring::training {

struct LabelledPosition {
    PackedPosition position;
    Outcome result = Outcome::Draw;     // white's
    std::optional<std::int16_t> score;  // centipawns from white's point of view
};

// Returns white's score in the game: 0, 0.5 or 1.
constexpr double white_score(Outcome result) {
    return 0.5 * half_points(result);
}

}  // namespace sparring::training
