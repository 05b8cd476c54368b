// The move picker: hands out a node's moves one at a time, best-looking first, generating
// them in stages (hash move, good captures, killers, counter move, quiets, bad captures).
#pragma once

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
    void score_captures();
    void score_quiets();
    void score_evasions();
    void sort_range();
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
    Move moves_[MAX_MOVES];
    int scores_[MAX_MOVES];
};

}  // namespace sparring
