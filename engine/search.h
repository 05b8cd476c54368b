// The search of one position: iterative deepening with aspiration windows around a
// principal-variation alpha-beta search with pruning and reductions, and a quiescence
// search of captures at the leaves.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/evaluate.h"
#include "engine/history.h"
#include "engine/movegen.h"
#include "engine/timeman.h"
#include "engine/tt.h"
#include "engine/value.h"

namespace sparring {

class Searcher {
  public:
    // Prepares a search of board (which must have evaluator's psq table attached); the
    // pawn cache (for evaluator's parameters), table, histories and stop flag belong to
    // the engine that runs it.
    Searcher(Board& board, const Evaluator& evaluator, PawnCache& pawn_cache,
             TranspositionTable& tt, SearchHistory& history, const SearchLimits& limits,
             const std::atomic<bool>& stop, const std::function<void(const SearchInfo&)>& on_info);

    // Searches until a limit is reached or a stop is requested; returns the best move of
    // the last completed iteration.
    SearchResult run();

  private:
    // What the search remembers about each ply of the current line.
    struct Frame {
        Move move;
        Piece moved = NO_PIECE;
        bool null_move = false;
        int static_eval = VALUE_NONE;
        PieceToHistory* cont = nullptr;  // continuation history after this ply's move
    };

    int search(int alpha, int beta, int depth, int ply, bool cut_node);
    int qsearch(int alpha, int beta, int ply);
    bool should_abort();
    bool is_draw(int ply) const;
    int evaluate() const { return evaluator_.evaluate(board_, pawn_cache_); }
    Frame& frame(int ply) { return frames_[ply + 2]; }
    void play(Move m, int ply);
    void take_back() { board_.undo_move(); }
    void update_pv(int ply, Move m);
    void update_quiet_stats(int ply, Move best, const Move* quiets, int quiet_count, int bonus);
    void update_capture_stats(Move best, const Move* captures, int capture_count, int bonus);
    bool has_non_pawn_material() const;
    SearchInfo make_info(int depth, int score) const;

    Board& board_;
    const Evaluator& evaluator_;
    PawnCache& pawn_cache_;
    TranspositionTable& tt_;
    SearchHistory& history_;
    const SearchLimits& limits_;
    const std::atomic<bool>& stop_;
    const std::function<void(const SearchInfo&)>& on_info_;
    TimeManager time_;

    std::uint64_t nodes_ = 0;
    int seldepth_ = 0;
    int root_depth_ = 0;
    int completed_depth_ = 0;
    bool aborted_ = false;
    Move root_best_;

    // Position keys of the game before the root, then of the current line by ply.
    std::vector<Key> game_keys_;
    Key line_keys_[MAX_PLY + 1] = {};
    Frame frames_[MAX_PLY + 3];
    Move pv_[MAX_PLY + 1][MAX_PLY + 1];
    int pv_length_[MAX_PLY + 1] = {};
};

}  // namespace sparring
