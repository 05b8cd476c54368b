// Which labelled positions the evaluation can learn from: quiet ones, where the static
// evaluation is meant to hold, with a result (or score) not decided by a forced mate.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/board.h"
#include "training/labelled_position.h"

namespace sparring::training {

struct FilterOptions {
    bool in_check = true;     // drop positions where the side to move is in check
    bool tactical = true;     // drop positions with a capture or promotion to make (see below)
    bool mate_scores = true;  // drop positions whose score announces a forced mate
};

enum class FilterVerdict { Keep, InCheck, Tactical, MateScore };

struct FilterCounts {
    std::size_t kept = 0;
    std::size_t in_check = 0;
    std::size_t tactical = 0;
    std::size_t mate_scores = 0;
};

// Returns why a position is left out, or Keep. A position is tactical when best_move (the
// move a search or a game chose, if known) is a capture or a promotion; when it is not
// known, when the side to move has a promotion or a capture that wins material by static
// exchange evaluation. score is white's, in centipawns.
FilterVerdict classify_position(const Board& board, std::optional<int> score, Move best_move,
                                const FilterOptions& options);
// Removes the positions the options reject, keeping the order of the rest, on threads
// threads; throws std::invalid_argument naming a position that does not unpack.
FilterCounts filter_positions(std::vector<LabelledPosition>* positions,
                              const FilterOptions& options, int threads);
// Parses a comma-separated list of the filters to apply ("check", "tactical", "mate"), or
// "all" or "none"; nullopt with *error for anything else.
std::optional<FilterOptions> parse_filter_options(std::string_view text, std::string* error);

}  // namespace sparring::training
