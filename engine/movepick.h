// The move picker: hands out a node's moves one at a time, best-looking first, generating
// them in stages (hash move, good captures, killers, counter move, quiets, bad captures).
#pragma once

#include <cstdint>

#include "engine/board.h"
#include "engine/history.h"
#include "engine/movegen.h"

namespace sparring {

class MovePicker {
  public:
    // Orders every move of a main-search node; cont holds the continuation histories of
    // the previous two moves.
    MovePicker(const Board& board, Move tt_move, const SearchHistory& history, const Move* killers,
               Move counter_move, const PieceToHistory* const* cont);
    // Orders captures and promotions (or every evasion in check) for quiescence search.
    MovePicker(const Board& board, Move tt_move, const SearchHistory& history,
               const PieceToHistory* const* cont);

    // Returns the next move, or Move::none() when there are no more; skip_quiets leaves out
    // the remaining quiet moves.
    Move next(bool skip_quiets = false);

  private:
    enum class Stage {
        MainTT,
        CaptureInit,
        GoodCapture,
        Killer0,
        Killer1,
        Counter,
        QuietInit,
        Quiet,
        BadCapture,
        EvasionTT,
        EvasionInit,
        Evasion,
        QsTT,
        QsCaptureInit,
        QsCapture,
        Done
    };
    // Returns the sort key of the move with this score at index i of the list: higher
    // scores first, and of equal scores the one generated first, so that no two keys tie.
    static std::int64_t order_key(int score, int i) {
        return std::int64_t{score} * MAX_MOVES + (MAX_MOVES - 1 - i);
    }
    void score_captures();
    void score_quiets();
    void score_evasions();
    void start_selection();
    void select_best();
    void sort_rest();
    void swap_moves(int a, int b);
    bool is_valid_quiet(Move m) const;

    const Board& board_;
    const SearchHistory& history_;
    const PieceToHistory* const* cont_;
    Move tt_move_;
    Move refutations_[3];
    Stage stage_;
    int cur_ = 0;
    int end_ = 0;
    int end_bad_ = 0;
    static constexpr int LAZY_PICKS = 6;  // picks by linear scan before sorting the rest
    int picks_ = 0;
    bool sorted_ = false;
    Move moves_[MAX_MOVES];
    std::int64_t keys_[MAX_MOVES];  // see order_key
};

}  // namespace sparring
