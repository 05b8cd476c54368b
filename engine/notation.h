// Move notation: UCI long algebraic (e2e4, e7e8q) and SAN (Nf3, exd5, O-O, e8=Q+).
#pragma once

#include <string>
#include <string_view>

#include "engine/board.h"
#include "engine/movegen.h"

namespace sparring {

// Returns the move in UCI notation ("0000" for Move::none()).
std::string to_uci(Move m);
// Returns the legal move written in UCI notation, or Move::none() if it is not legal here.
Move parse_uci(const Board& board, std::string_view text);
// Returns the legal move m in SAN, with + or # when it gives check or mate (an empty string
// when m is not legal here).
std::string to_san(const Board& board, Move m);
// The same for a move among the position's legal moves, already generated (legal is
// MoveList<>(board)): readers of many moves (the stored games' decoder) generate them once.
std::string to_san(const Board& board, const MoveList<>& legal, Move m);
// Returns the legal move written in SAN (check marks and annotations tolerated),
// or Move::none() if it is not legal or ambiguous here.
Move parse_san(const Board& board, std::string_view text);

}  // namespace sparring
