// Static evaluation: a tapered middle-game/end-game sum of terms whose weights all come
// from a ParamSet (see params.h).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/board.h"
#include "engine/params.h"

namespace sparring {

// The pawn-structure terms of recent positions. They depend on the pawns alone, which
// change far less often than the rest of the position, so most evaluations in a search find
// them here. Entries are keyed by both pawn bitboards in full: a hit returns exactly what
// computing the terms again would. A cache belongs to one Evaluator's parameters and to
// one thread at a time.
class PawnCache {
  public:
    struct Entry {
        Bitboard pawns[COLOR_NB] = {~Bitboard{0}, ~Bitboard{0}};  // no position has these
        Bitboard passed[COLOR_NB] = {};
        int mg = 0;  // white's minus black's pawn-structure terms
        int eg = 0;
    };

    // Returns the one entry where the structure with these pawns is (or would be) stored.
    Entry& slot(Bitboard white_pawns, Bitboard black_pawns) {
        const Bitboard mixed =
            white_pawns * 0x9E3779B97F4A7C15ULL ^ black_pawns * 0xC2B2AE3D27D4EB4FULL;
        return entries_[mixed >> (64 - BITS)];
    }

  private:
    static constexpr int BITS = 11;  // 2048 entries of 40 bytes: small enough to stay cached
    Entry entries_[1 << BITS];
};

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
    // The same evaluation, looking the pawn-structure terms up in (and adding them to) cache.
    int evaluate(const Board& board, PawnCache& cache) const;

    // Packs a middle-game and an end-game value into one integer, the end game in the upper
    // 32 bits: sums of packed values carry both totals at once.
    static constexpr std::int64_t pack(int mg, int eg) {
        return static_cast<std::int64_t>(eg) * (std::int64_t{1} << 32) + mg;
    }

  private:
    ParamSet params_;
    PsqTable psq_table_{};
    std::vector<std::int64_t> packed_weights_;  // per term pair: pack(mg value, eg value)
};

}  // namespace sparring
