// Strictly legal move generation (pin masks, check evasions) and perft.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/board.h"

namespace sparring {

inline constexpr int MAX_MOVES = 256;

// Which legal moves to generate. Captures includes every promotion and en passant;
// Quiets is everything else (castling included). All = Captures + Quiets.
enum class GenType { All, Captures, Quiets };

// Writes the legal moves of kind T into list and returns the end of what it wrote.
template <GenType T>
Move* generate(const Board& board, Move* list);

// Counts the legal moves without writing them (the bulk count at perft's last ply).
int count_legal_moves(const Board& board);

// A fixed array of the legal moves of one position.
template <GenType T = GenType::All>
class MoveList {
  public:
    explicit MoveList(const Board& board) : last_(generate<T>(board, moves_)) {}
    const Move* begin() const { return moves_; }
    const Move* end() const { return last_; }
    std::size_t size() const { return static_cast<std::size_t>(last_ - moves_); }
    bool contains(Move m) const {
        for (Move x : *this)
            if (x == m) return true;
        return false;
    }

  private:
    Move moves_[MAX_MOVES];
    Move* last_;
};

// Counts the leaf nodes at the given depth (bulk counting at the last ply).
std::uint64_t perft(Board& board, int depth);
// Returns each root move with its perft count at depth - 1, in generation order.
std::vector<std::pair<Move, std::uint64_t>> perft_divide(Board& board, int depth);

}  // namespace sparring
