#include "engine/movepick.h"

#include "engine/see.h"

namespace sparring {

MovePicker::MovePicker(const Board& board, Move tt_move, const SearchHistory& history,
                       const Move* killers, Move counter_move, const PieceToHistory* const* cont)
    : board_(board),
      history_(history),
      cont_(cont),
      tt_move_(tt_move),
      refutations_{killers[0], killers[1], counter_move} {
    stage_ = board.in_check() ? Stage::EvasionTT : Stage::MainTT;
    if (tt_move_ && !board.is_legal(tt_move_)) tt_move_ = Move::none();
    if (!tt_move_) stage_ = Stage(int(stage_) + 1);
}

MovePicker::MovePicker(const Board& board, Move tt_move, const SearchHistory& history,
                       const PieceToHistory* const* cont)
    : board_(board), history_(history), cont_(cont), tt_move_(tt_move), refutations_{} {
    stage_ = board.in_check() ? Stage::EvasionTT : Stage::QsTT;
    if (tt_move_ &&
        (!board.is_legal(tt_move_) ||
         (!board.in_check() && !board.is_capture(tt_move_) && tt_move_.kind() != Move::PROMOTION)))
        tt_move_ = Move::none();
    if (!tt_move_) stage_ = Stage(int(stage_) + 1);
}

// Scores captures by the victim's value first and the attacker's value second (MVV-LVA),
// refined by the capture history.
void MovePicker::score_captures() {
    for (int i = cur_; i < end_; ++i) {
        Move m = moves_[i];
        Piece moved = board_.piece_on(m.from());
        PieceType victim = m.kind() == Move::EN_PASSANT ? PAWN : type_of(board_.piece_on(m.to()));
        int score = 16 * SEE_VALUE[victim] - SEE_VALUE[type_of(moved)] / 8 +
                    history_.capture[moved][m.to()][victim] / 16;
        if (m.kind() == Move::PROMOTION)
            score += m.promotion() == QUEEN ? 16 * SEE_VALUE[QUEEN] : -100000;
        keys_[i] = order_key(score, i);
    }
}

// Scores quiet moves by their from-to history and the continuation histories.
void MovePicker::score_quiets() {
    Color us = board_.side();
    for (int i = cur_; i < end_; ++i) {
        Move m = moves_[i];
        Piece moved = board_.piece_on(m.from());
        const int score = history_.butterfly[us][m.from()][m.to()] + (*cont_[0])[moved][m.to()] +
                          (*cont_[1])[moved][m.to()];
        keys_[i] = order_key(score, i);
    }
}

// Scores check evasions: captures first by MVV-LVA, then quiet moves by history.
void MovePicker::score_evasions() {
    Color us = board_.side();
    for (int i = cur_; i < end_; ++i) {
        Move m = moves_[i];
        Piece moved = board_.piece_on(m.from());
        int score;
        if (board_.is_capture(m)) {
            PieceType victim =
                m.kind() == Move::EN_PASSANT ? PAWN : type_of(board_.piece_on(m.to()));
            score = (1 << 28) + 16 * SEE_VALUE[victim] - SEE_VALUE[type_of(moved)] / 8;
        } else {
            score = history_.butterfly[us][m.from()][m.to()] + (*cont_[0])[moved][m.to()];
        }
        keys_[i] = order_key(score, i);
    }
}

// Exchanges two moves and their keys.
void MovePicker::swap_moves(int a, int b) {
    std::swap(moves_[a], moves_[b]);
    std::swap(keys_[a], keys_[b]);
}

// Brings the move with the highest key in [cur_, end_) to cur_. The keys are unique and
// order the moves as a stable sort by decreasing score would, so moves come out in that
// order however the others get shuffled. Most nodes are cut off or pruned after a few
// moves, so the first few are picked by a linear scan; a node that wants more sorts the rest.
void MovePicker::select_best() {
    if (sorted_) return;
    if (++picks_ > LAZY_PICKS) {
        sort_rest();
        return;
    }
    int best = cur_;
    for (int i = cur_ + 1; i < end_; ++i)
        if (keys_[i] > keys_[best]) best = i;
    swap_moves(cur_, best);
}

// Sorts [cur_, end_) by decreasing key (insertion sort: lists are short).
void MovePicker::sort_rest() {
    for (int i = cur_ + 1; i < end_; ++i) {
        const Move m = moves_[i];
        const std::int64_t key = keys_[i];
        int j = i;
        for (; j > cur_ && keys_[j - 1] < key; --j) {
            moves_[j] = moves_[j - 1];
            keys_[j] = keys_[j - 1];
        }
        moves_[j] = m;
        keys_[j] = key;
    }
    sorted_ = true;
}

// Starts handing out the freshly scored moves of [cur_, end_).
void MovePicker::start_selection() {
    picks_ = 0;
    sorted_ = false;
}

// Returns whether a killer or counter move is a legal quiet move here, not the hash move.
bool MovePicker::is_valid_quiet(Move m) const {
    return m && m != tt_move_ && m.kind() != Move::PROMOTION && !board_.is_capture(m) &&
           board_.is_legal(m);
}

// Returns the next move by stage (hash move, good captures, killers and counter, quiets, bad
// captures; evasions in check), or none when done.
// Longer than 80 lines on purpose: the hot path, one switch over the stages that fall through.
Move MovePicker::next(bool skip_quiets) {
    while (true) {
        switch (stage_) {
            case Stage::MainTT:
            case Stage::EvasionTT:
            case Stage::QsTT:
                stage_ = Stage(int(stage_) + 1);
                return tt_move_;

            case Stage::CaptureInit:
            case Stage::QsCaptureInit:
                cur_ = end_bad_ = 0;
                end_ = static_cast<int>(generate<GenType::Captures>(board_, moves_) - moves_);
                score_captures();
                start_selection();
                stage_ = Stage(int(stage_) + 1);
                break;

            case Stage::GoodCapture:
                while (cur_ < end_) {
                    select_best();
                    Move m = moves_[cur_];
                    if (m == tt_move_) {
                        ++cur_;
                        continue;
                    }
                    if (keys_[cur_] < 0 || !see_ge(board_, m, 0)) {
                        swap_moves(end_bad_++, cur_++);
                        continue;
                    }
                    ++cur_;
                    return m;
                }
                stage_ = Stage::Killer0;
                break;

            case Stage::Killer0:
            case Stage::Killer1:
            case Stage::Counter: {
                int index = int(stage_) - int(Stage::Killer0);
                stage_ = Stage(int(stage_) + 1);
                Move m = refutations_[index];
                bool repeated = false;
                for (int i = 0; i < index; ++i) repeated |= refutations_[i] == m;
                if (!skip_quiets && !repeated && is_valid_quiet(m)) return m;
                break;
            }

            case Stage::QuietInit:
                if (!skip_quiets) {
                    cur_ = end_bad_;
                    end_ =
                        static_cast<int>(generate<GenType::Quiets>(board_, moves_ + cur_) - moves_);
                    score_quiets();
                    start_selection();
                } else {
                    cur_ = end_ = end_bad_;
                }
                stage_ = Stage::Quiet;
                break;

            case Stage::Quiet:
                while (!skip_quiets && cur_ < end_) {
                    select_best();
                    Move m = moves_[cur_++];
                    if (m != tt_move_ && m != refutations_[0] && m != refutations_[1] &&
                        m != refutations_[2])
                        return m;
                }
                cur_ = 0;
                end_ = end_bad_;
                stage_ = Stage::BadCapture;
                break;

            case Stage::BadCapture:
                if (cur_ < end_) return moves_[cur_++];
                stage_ = Stage::Done;
                break;

            case Stage::EvasionInit:
                cur_ = 0;
                end_ = static_cast<int>(generate<GenType::All>(board_, moves_) - moves_);
                score_evasions();
                start_selection();
                stage_ = Stage::Evasion;
                break;

            case Stage::Evasion:
            case Stage::QsCapture:
                while (cur_ < end_) {
                    select_best();
                    Move m = moves_[cur_++];
                    if (m != tt_move_) return m;
                }
                stage_ = Stage::Done;
                break;

            case Stage::Done:
                return Move::none();
        }
    }
}

}  // namespace sparring
