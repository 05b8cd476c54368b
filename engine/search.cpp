#include "engine/search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "engine/bitboard.h"
#include "engine/movegen.h"
#include "engine/movepick.h"
#include "engine/see.h"

namespace sparring {

namespace {

// Returns the history bonus for a move that caused a cutoff at the given depth.
int stat_bonus(int depth) {
    return std::min(1800, 220 * depth - 120);
}

// The late-move-reduction factor of a depth or a move number: 20 ln(i). Built once rather
// than per search: at a thousand nodes per move the search's setup is not negligible.
struct ReductionTable {
    ReductionTable() {
        for (int i = 1; i < MAX_MOVES; ++i)
            value[i] = static_cast<int>(std::log(static_cast<double>(i)) * 20.0);
    }
    int value[MAX_MOVES] = {};
};
const ReductionTable REDUCTIONS;

// Returns whether a move changes material (captures and promotions).
bool is_tactical(const Board& board, Move m) {
    return board.is_capture(m) || m.kind() == Move::PROMOTION;
}

}  // namespace

Searcher::Searcher(Board& board, const Evaluator& evaluator, PawnCache& pawn_cache,
                   TranspositionTable& tt, SearchHistory& history, const SearchLimits& limits,
                   const std::atomic<bool>& stop,
                   const std::function<void(const SearchInfo&)>& on_info)
    : board_(board),
      evaluator_(evaluator),
      pawn_cache_(pawn_cache),
      tt_(tt),
      history_(history),
      limits_(limits),
      stop_(stop),
      on_info_(on_info),
      time_(limits, board.side(), board.game_ply()) {
    for (const MoveRecord& record : board.moves()) game_keys_.push_back(record.hash);
    PieceToHistory* sentinel = &history_.continuation[NO_PIECE][SQ_A1];
    for (Frame& f : frames_) f.cont = sentinel;
}

// Checks the stop flags, the node limit and (every 1024 nodes) the clock; depth 1 always
// completes (it takes microseconds), so even a search stopped at once plays a searched move.
bool Searcher::should_abort() {
    if (aborted_) return true;
    if (completed_depth_ == 0) return false;
    if (stop_.load(std::memory_order_relaxed) ||
        (limits_.stop_signal && limits_.stop_signal->load(std::memory_order_relaxed)))
        return aborted_ = true;
    if (limits_.nodes && nodes_ >= limits_.nodes) return aborted_ = true;
    if ((nodes_ & 1023) == 0 && time_.must_stop()) return aborted_ = true;
    return false;
}

// Returns whether the position is drawn by the fifty-move rule, insufficient material, or
// repetition: once within the searched line, or twice counting the game before the root.
bool Searcher::is_draw(int ply) const {
    if (board_.halfmove_clock() >= 100 && board_.is_fifty_move_draw()) return true;
    if (board_.is_insufficient_material()) return true;
    // A repetition needs four plies since the last irreversible move (or null move).
    int reach = board_.halfmove_clock();
    if (reach < 4) return false;
    for (int back = 1; back <= std::min(reach, ply); ++back)
        if (frames_[ply - back + 2].null_move) {
            reach = back - 1;
            break;
        }
    Key key = board_.hash();
    int root_index = static_cast<int>(game_keys_.size());
    int occurrences = 0;
    for (int back = 4; back <= reach; back += 2) {
        int index = ply - back;
        if (index >= 0) {
            if (line_keys_[index] == key) return true;
        } else {
            if (root_index + index < 0) break;
            if (game_keys_[root_index + index] == key && ++occurrences == 2) return true;
        }
    }
    return false;
}

// Returns whether the side to move has a piece other than pawns and its king.
bool Searcher::has_non_pawn_material() const {
    Color us = board_.side();
    return (board_.pieces(us) & ~board_.pieces(PAWN) & ~board_.pieces(KING)) != 0;
}

// Makes move m at ply, recording it for the histories and the repetition check.
void Searcher::play(Move m, int ply) {
    Frame& f = frame(ply);
    f.move = m;
    f.moved = board_.piece_on(m.from());
    f.null_move = false;
    f.cont = &history_.continuation[f.moved][m.to()];
    board_.do_move(m);
    line_keys_[ply + 1] = board_.hash();
}

// Prepends m to the principal variation of the child node.
void Searcher::update_pv(int ply, Move m) {
    pv_[ply][ply] = m;
    int end = pv_length_[ply + 1];
    for (int i = ply + 1; i < end; ++i) pv_[ply][i] = pv_[ply + 1][i];
    pv_length_[ply] = std::max(end, ply + 1);
}

// Rewards the quiet move that caused a cutoff and penalises the quiet moves tried before it.
void Searcher::update_quiet_stats(int ply, Move best, const Move* quiets, int quiet_count,
                                  int bonus) {
    Color us = board_.side();
    auto reward = [&](Move m, int b) {
        Piece moved = board_.piece_on(m.from());
        update_history(history_.butterfly[us][m.from()][m.to()], b);
        update_history((*frame(ply - 1).cont)[moved][m.to()], b);
        update_history((*frame(ply - 2).cont)[moved][m.to()], b);
    };
    reward(best, bonus);
    for (int i = 0; i < quiet_count; ++i) reward(quiets[i], -bonus);
    Move* killers = history_.killers[ply];
    if (killers[0] != best) {
        killers[1] = killers[0];
        killers[0] = best;
    }
    const Frame& prev = frame(ply - 1);
    if (prev.move && !prev.null_move) history_.counter_moves[prev.moved][prev.move.to()] = best;
}

// Rewards the capture that caused a cutoff and penalises the captures tried before it.
void Searcher::update_capture_stats(Move best, const Move* captures, int capture_count, int bonus) {
    auto reward = [&](Move m, int b) {
        if (m.kind() == Move::PROMOTION && !board_.is_capture(m)) return;
        PieceType victim = m.kind() == Move::EN_PASSANT ? PAWN : type_of(board_.piece_on(m.to()));
        update_history(history_.capture[board_.piece_on(m.from())][m.to()][victim], b);
    };
    if (best) reward(best, bonus);
    for (int i = 0; i < capture_count; ++i) reward(captures[i], -bonus);
}

// Searches a node of the main tree to depth with the window (alpha, beta), returning its
// score from the side to move's point of view (fail-soft).
// Longer than 80 lines on purpose: the hot path, whose pruning steps share the node's state.
int Searcher::search(int alpha, int beta, int depth, int ply, bool cut_node) {
    const bool pv_node = beta - alpha > 1;
    const bool root = ply == 0;
    pv_length_[ply] = ply;
    if (depth <= 0) return qsearch(alpha, beta, ply);

    ++nodes_;
    if (should_abort()) return 0;
    seldepth_ = std::max(seldepth_, ply);
    const bool in_check = board_.in_check();

    if (!root) {
        if (is_draw(ply)) return VALUE_DRAW;
        if (ply >= MAX_PLY - 1) return in_check ? VALUE_DRAW : evaluate();
        alpha = std::max(alpha, mated_in(ply));
        beta = std::min(beta, mate_in(ply + 1));
        if (alpha >= beta) return alpha;
    }

    Key key = board_.hash();
    TTData tt;
    bool tt_hit = tt_.probe(key, tt);
    int tt_score = tt_hit ? value_from_tt(tt.score, ply) : VALUE_NONE;
    Move tt_move = root && root_best_ ? root_best_ : tt_hit ? tt.move : Move::none();
    if (!pv_node && tt_hit && tt.depth >= depth && tt_score != VALUE_NONE &&
        (tt.bound & (tt_score >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tt_score;

    Frame& f = frame(ply);
    int eval = VALUE_NONE;
    if (in_check) {
        f.static_eval = VALUE_NONE;
    } else {
        f.static_eval = tt_hit && tt.eval != VALUE_NONE ? tt.eval : evaluate();
        eval = f.static_eval;
        if (tt_score != VALUE_NONE && (tt.bound & (tt_score > eval ? BOUND_LOWER : BOUND_UPPER)))
            eval = tt_score;
    }
    const int prev_eval = frame(ply - 2).static_eval;
    const bool improving = !in_check && prev_eval != VALUE_NONE && f.static_eval > prev_eval;
    // Grandchildren start without killers; children share theirs with their siblings.
    history_.killers[std::min(ply + 2, MAX_PLY)][0] = Move::none();
    history_.killers[std::min(ply + 2, MAX_PLY)][1] = Move::none();

    if (!pv_node && !in_check && !is_mate_score(beta)) {
        // Reverse futility pruning: far above beta at low depth, a quiet move will not drop.
        if (depth <= 8 && eval - (80 - 30 * improving) * depth >= beta) return (eval + beta) / 2;

        // Null move pruning: if passing still fails high, the position is good enough.
        if (eval >= beta && f.static_eval >= beta - 15 * depth && !frame(ply - 1).null_move &&
            depth >= 3 && has_non_pawn_material()) {
            int r = 3 + depth / 3 + std::min(3, (eval - beta) / 200);
            f.move = Move::none();
            f.moved = NO_PIECE;
            f.null_move = true;
            f.cont = &history_.continuation[NO_PIECE][SQ_A1];
            board_.do_null_move();
            line_keys_[ply + 1] = board_.hash();
            tt_.prefetch(board_.hash());
            int score = -search(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
            board_.undo_null_move();
            f.null_move = false;
            if (aborted_) return 0;
            if (score >= beta) return score >= VALUE_MATE_IN_MAX_PLY ? beta : score;
        }
    }

    // Internal iterative reduction: without a hash move this node is probably not critical.
    if (!tt_move && depth >= 4 && (pv_node || cut_node)) --depth;

    const Frame& prev = frame(ply - 1);
    Move counter = prev.move && !prev.null_move ? history_.counter_moves[prev.moved][prev.move.to()]
                                                : Move::none();
    const PieceToHistory* cont[2] = {frame(ply - 1).cont, frame(ply - 2).cont};
    MovePicker picker(board_, tt_move, history_, history_.killers[ply], counter, cont);

    int best = -VALUE_INFINITE;
    Move best_move;
    Move quiets[64], captures[32];
    int quiet_count = 0, capture_count = 0, move_count = 0;
    bool skip_quiets = false;
    const int original_alpha = alpha;
    const Color us = board_.side();

    while (Move m = picker.next(skip_quiets)) {
        // Start loading the child's hash-table bucket now: the checks below take long
        // enough to hide much of the memory latency if the move is played.
        tt_.prefetch(board_.key_after(m));
        ++move_count;
        const bool tactical = is_tactical(board_, m);
        const bool gives_check = board_.gives_check(m);
        const Piece moved = board_.piece_on(m.from());
        const int history = tactical ? 0
                                     : history_.butterfly[us][m.from()][m.to()] +
                                           (*cont[0])[moved][m.to()] + (*cont[1])[moved][m.to()];
        int r = depth >= 2 ? REDUCTIONS.value[std::min(depth, 63)] *
                                 REDUCTIONS.value[std::min(move_count, MAX_MOVES - 1)] / 1100
                           : 0;

        if (!root && best > VALUE_MATED_IN_MAX_PLY && has_non_pawn_material()) {
            if (!tactical && !gives_check) {
                // Late move pruning: the last quiet moves of a shallow node rarely matter.
                if (depth <= 8 && move_count >= (3 + depth * depth) / (2 - improving)) {
                    skip_quiets = true;
                    continue;
                }
                int lmr_depth = std::max(0, depth - 1 - r);
                // Futility pruning: a quiet move cannot lift a hopeless static score to alpha.
                if (!in_check && lmr_depth <= 8 && f.static_eval + 120 + 100 * lmr_depth <= alpha)
                    continue;
                if (lmr_depth <= 8 && !see_ge(board_, m, -25 * lmr_depth * lmr_depth)) continue;
            } else if (depth <= 8 && !see_ge(board_, m, -100 * depth)) {
                continue;
            }
        }

        // Check extension, limited so that perpetual checks cannot explode the tree.
        int extension = gives_check && ply < 2 * root_depth_ && see_ge(board_, m, 0) ? 1 : 0;
        int new_depth = depth - 1 + extension;

        play(m, ply);
        int score = -VALUE_INFINITE;
        if (depth >= 3 && move_count > 1 + 2 * pv_node && (!tactical || !pv_node)) {
            // Late move reduction: search late moves shallower, and again fully if they rise.
            if (pv_node) --r;
            if (cut_node) r += 1;
            if (!improving) r += 1;
            if (tactical) r -= 1;
            if (m == history_.killers[ply][0] || m == history_.killers[ply][1] || m == counter) --r;
            if (gives_check) --r;
            r -= history / 8000;
            int reduced = std::clamp(new_depth - r, 1, new_depth);
            score = -search(-alpha - 1, -alpha, reduced, ply + 1, true);
            if (score > alpha && reduced < new_depth)
                score = -search(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
        } else if (!pv_node || move_count > 1) {
            score = -search(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
        }
        if (pv_node && (move_count == 1 || score > alpha))
            score = -search(-beta, -alpha, new_depth, ply + 1, false);
        take_back();
        if (aborted_) return 0;

        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                if (pv_node) update_pv(ply, m);
                if (score >= beta) break;
                alpha = score;
            }
        }
        if (m != best_move) {
            if (tactical && capture_count < 32)
                captures[capture_count++] = m;
            else if (!tactical && quiet_count < 64)
                quiets[quiet_count++] = m;
        }
    }

    if (move_count == 0) return in_check ? mated_in(ply) : VALUE_DRAW;

    if (best >= beta) {
        int bonus = stat_bonus(depth);
        if (!is_tactical(board_, best_move))
            update_quiet_stats(ply, best_move, quiets, quiet_count, bonus);
        update_capture_stats(is_tactical(board_, best_move) ? best_move : Move::none(), captures,
                             capture_count, bonus);
    }

    Bound bound = best >= beta                       ? BOUND_LOWER
                  : pv_node && best > original_alpha ? BOUND_EXACT
                                                     : BOUND_UPPER;
    tt_.store(key, best_move, value_to_tt(best, ply), f.static_eval, depth, bound);
    return best;
}

// Resolves captures (all evasions when in check) until the position is quiet, so that the
// static evaluation is only trusted where nothing hangs.
int Searcher::qsearch(int alpha, int beta, int ply) {
    const bool pv_node = beta - alpha > 1;
    pv_length_[ply] = ply;
    ++nodes_;
    if (should_abort()) return 0;
    seldepth_ = std::max(seldepth_, ply);
    const bool in_check = board_.in_check();
    if (is_draw(ply)) return VALUE_DRAW;
    if (ply >= MAX_PLY - 1) return in_check ? VALUE_DRAW : evaluate();

    Key key = board_.hash();
    TTData tt;
    bool tt_hit = tt_.probe(key, tt);
    int tt_score = tt_hit ? value_from_tt(tt.score, ply) : VALUE_NONE;
    if (!pv_node && tt_hit && tt_score != VALUE_NONE &&
        (tt.bound & (tt_score >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tt_score;

    int best = -VALUE_INFINITE;
    int static_eval = VALUE_NONE;
    if (!in_check) {
        static_eval = tt_hit && tt.eval != VALUE_NONE ? tt.eval : evaluate();
        best = static_eval;
        if (tt_score != VALUE_NONE && (tt.bound & (tt_score > best ? BOUND_LOWER : BOUND_UPPER)))
            best = tt_score;
        if (best >= beta) {
            if (!tt_hit)
                tt_.store(key, Move::none(), value_to_tt(best, ply), static_eval, 0, BOUND_LOWER);
            return best;
        }
        alpha = std::max(alpha, best);
    }

    const PieceToHistory* cont[2] = {frame(ply - 1).cont, frame(ply - 2).cont};
    MovePicker picker(board_, tt_hit ? tt.move : Move::none(), history_, cont);
    Move best_move;
    int move_count = 0;
    while (Move m = picker.next()) {
        tt_.prefetch(board_.key_after(m));  // as in search()
        ++move_count;
        if (!in_check) {
            // Delta pruning: even winning the victim for free would not reach alpha.
            if (m.kind() != Move::PROMOTION && !board_.gives_check(m)) {
                PieceType victim =
                    m.kind() == Move::EN_PASSANT ? PAWN : type_of(board_.piece_on(m.to()));
                if (static_eval + 200 + SEE_VALUE[victim] <= alpha) continue;
            }
            if (!see_ge(board_, m, 0)) continue;
        }
        play(m, ply);
        int score = -qsearch(-beta, -alpha, ply + 1);
        take_back();
        if (aborted_) return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                best_move = m;
                if (pv_node) update_pv(ply, m);
                if (score >= beta) break;
                alpha = score;
            }
        }
    }
    if (in_check && move_count == 0) return mated_in(ply);

    tt_.store(key, best_move, value_to_tt(best, ply), static_eval, 0,
              best >= beta ? BOUND_LOWER : BOUND_UPPER);
    return best;
}

// Converts a root score and the current principal variation into an info record.
SearchInfo Searcher::make_info(int depth, int score) const {
    SearchInfo info;
    info.depth = depth;
    info.seldepth = std::max(seldepth_, depth);
    info.mate = is_mate_score(score);
    info.score = info.mate ? mate_distance_moves(score) : score;
    info.nodes = nodes_;
    info.time_ms = time_.elapsed_ms();
    info.nps = nodes_ * 1000 / static_cast<std::uint64_t>(std::max(1, info.time_ms));
    info.hashfull = tt_.hashfull();
    info.pv.assign(pv_[0], pv_[0] + pv_length_[0]);
    return info;
}

SearchResult Searcher::run() {
    SearchResult result;
    MoveList<GenType::All> legal(board_);
    if (legal.size() == 0) {
        result.mate = board_.in_check();
        return result;
    }
    tt_.new_search();
    line_keys_[0] = board_.hash();
    result.best_move = *legal.begin();
    TTData tt;
    if (tt_.probe(board_.hash(), tt) && legal.contains(tt.move)) result.best_move = tt.move;

    const int max_depth = limits_.depth > 0 ? std::min(limits_.depth, MAX_PLY - 4) : MAX_PLY - 4;
    int score = 0;
    Move previous_best;
    double stability = 1.0;
    for (int depth = 1; depth <= max_depth; ++depth) {
        root_depth_ = depth;
        seldepth_ = 0;
        int delta = 18;
        int alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
        if (depth >= 5) {
            alpha = std::max(score - delta, -VALUE_INFINITE);
            beta = std::min(score + delta, int(VALUE_INFINITE));
        }
        int value;
        while (true) {
            value = search(alpha, beta, depth, 0, false);
            if (aborted_) break;
            if (value <= alpha) {
                beta = (alpha + beta) / 2;
                alpha = std::max(value - delta, -VALUE_INFINITE);
            } else if (value >= beta) {
                beta = std::min(value + delta, int(VALUE_INFINITE));
            } else {
                break;
            }
            delta += delta / 2;
        }
        if (aborted_) break;

        score = value;
        completed_depth_ = depth;
        root_best_ = pv_[0][0];
        result.best_move = root_best_;
        result.ponder_move = pv_length_[0] > 1 ? pv_[0][1] : Move::none();
        result.depth = depth;
        result.mate = is_mate_score(score);
        result.score = result.mate ? mate_distance_moves(score) : score;
        if (on_info_) on_info_(make_info(depth, score));

        if (limits_.nodes && nodes_ >= limits_.nodes) break;
        if (time_.is_timed()) {
            if (legal.size() == 1) break;
            // A proven mate will not change by searching much deeper.
            if (result.mate && depth >= 2 * std::abs(result.score) + 10) break;
            stability = root_best_ == previous_best ? std::max(0.6, stability * 0.85)
                                                    : std::min(1.6, stability * 1.4);
            if (!time_.may_start_iteration(stability)) break;
        }
        previous_best = root_best_;
    }

    // An infinite search may only return when told to.
    while (limits_.infinite && !stop_.load() &&
           !(limits_.stop_signal && limits_.stop_signal->load()))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));

    result.nodes = nodes_;
    result.time_ms = time_.elapsed_ms();
    return result;
}

}  // namespace sparring
