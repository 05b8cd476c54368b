// Labelled positions taken from played games: self-play games with the engines' scores, and
// PGN games, each position labelled with the result of its game.
#pragma once

#include <vector>

#include "match/game.h"
#include "match/pgn.h"
#include "training/labelled_position.h"
#include "training/position_filter.h"

namespace sparring::training {

// Returns the centipawn score of an engine's score (mates as VALUE_MATE minus plies).
int engine_score_cp(const match::EngineScore& score);

// Returns the positions of a finished game in which an engine (not the opening) chose the
// move, each with the game's result and the engine's score, leaving out and counting in
// *counts the ones the filters reject (the move played being the best move).
std::vector<LabelledPosition> game_positions(const match::GameResult& game,
                                             const FilterOptions& filters, FilterCounts* counts);
// Returns the positions of a PGN game after its first skip_plies moves, without scores;
// nothing for a game without a result ("*").
std::vector<LabelledPosition> pgn_game_positions(const match::PgnGame& game, int skip_plies,
                                                 const FilterOptions& filters,
                                                 FilterCounts* counts);

}  // namespace sparring::training
