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
        scores_[i] = score;
    }
}

// Scores quiet moves by their from-to history and the continuation histories.
void MovePicker::score_quiets() {
    Color us = board_.side();
    for (int i = cur_; i < end_; ++i) {
        Move m = moves_[i];
        Piece moved = board_.piece_on(m.from());
        scores_[i] = history_.butterfly[us][m.from()][m.to()] + (*cont_[0])[moved][m.to()] +
                     (*cont_[1])[moved][m.to()];
    }
}

// Scores check evasions: captures first by MVV-LVA, then quiet moves by history.
void MovePicker::score_evasions() {
    Color us = board_.side();
    for (int i = cur_; i < end_; ++i) {
        Move m = moves_[i];
        Piece moved = board_.piece_on(m.from());
        if (board_.is_capture(m)) {
            PieceType victim =
                m.kind() == Move::EN_PASSANT ? PAWN : type_of(board_.piece_on(m.to()));
            scores_[i] = (1 << 28) + 16 * SEE_VALUE[victim] - SEE_VALUE[type_of(moved)] / 8;
        } else {
            scores_[i] = history_.butterfly[us][m.from()][m.to()] + (*cont_[0])[moved][m.to()];
        }
    }
}

// Exchanges two moves and their scores.
void MovePicker::swap_moves(int a, int b) {
    std::swap(moves_[a], moves_[b]);
    std::swap(scores_[a], scores_[b]);
}

// Sorts the moves in [cur_, end_) by decreasing score (insertion sort: lists are short).
void MovePicker::sort_range() {
    for (int i = cur_ + 1; i < end_; ++i) {
        Move m = moves_[i];
        int s = scores_[i];
        int j = i;
        for (; j > cur_ && scores_[j - 1] < s; --j) {
            moves_[j] = moves_[j - 1];
            scores_[j] = scores_[j - 1];
        }
        moves_[j] = m;
        scores_[j] = s;
    }
}

// Returns whether a killer or counter move is a legal quiet move here, not the hash move.
bool MovePicker::is_valid_quiet(Move m) const {
    return m && m != tt_move_ && m.kind() != Move::PROMOTION && !board_.is_capture(m) &&
           board_.is_legal(m);
}

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
                sort_range();
                stage_ = Stage(int(stage_) + 1);
                break;

            case Stage::GoodCapture:
                while (cur_ < end_) {
                    Move m = moves_[cur_];
                    if (m == tt_move_) {
                        ++cur_;
                        continue;
                    }
                    if (scores_[cur_] < 0 || !see_ge(board_, m, 0)) {
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
                    sort_range();
                } else {
                    cur_ = end_ = end_bad_;
                }
                stage_ = Stage::Quiet;
                break;

            case Stage::Quiet:
                while (!skip_quiets && cur_ < end_) {
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
                sort_range();
                stage_ = Stage::Evasion;
                break;

            case Stage::Evasion:
            case Stage::QsCapture:
                while (cur_ < end_) {
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
