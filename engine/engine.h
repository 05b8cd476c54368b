// The engine facade: set a position, search it with limits, get info and the best move.
// Independent of the UCI text protocol, so the match runner drives it in-process.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/board.h"
#include "engine/params.h"

namespace sparring {

struct SearchLimits {
    int depth = 0;                   // 0: no depth limit
    std::uint64_t nodes = 0;         // 0: no node limit
    int movetime_ms = 0;             // 0: none
    int time_ms[COLOR_NB] = {0, 0};  // remaining clock per colour (0: no clock)
    int inc_ms[COLOR_NB] = {0, 0};   // increment per colour
    int movestogo = 0;               // 0: sudden death / increment
    bool infinite = false;           // search until stop()
    int move_overhead_ms = 30;       // clock time kept back for delays outside the search
    // Optional flag owned by the caller that stops the search when it turns true; unlike
    // stop(), a caller can raise it before search() has even started.
    const std::atomic<bool>* stop_signal = nullptr;
};

// What one UCI `info` line reports.
struct SearchInfo {
    int depth = 0;
    int seldepth = 0;
    int score = 0;      // centipawns, or moves to mate when mate is true
    bool mate = false;  // score > 0: the side to move mates
    std::uint64_t nodes = 0;
    std::uint64_t nps = 0;
    int time_ms = 0;
    int hashfull = 0;  // permille
    std::vector<Move> pv;
};

struct SearchResult {
    Move best_move;  // Move::none() only when the position has no legal move
    Move ponder_move;
    int score = 0;  // as SearchInfo::score
    bool mate = false;
    int depth = 0;
    std::uint64_t nodes = 0;
    int time_ms = 0;
};

class Engine {
  public:
    struct Options {
        int hash_mb = 16;
        ParamSet params;
    };

    // Builds an engine with the default options (two constructors rather than a default
    // argument: a nested struct's member initializers cannot be used inside its class).
    Engine();
    explicit Engine(Options options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Replaces the evaluation parameters (takes effect at the next search).
    void set_params(const ParamSet& params);
    const ParamSet& params() const;
    // Resizes the transposition table (clears it).
    void set_hash_mb(int megabytes);
    // Returns the transposition table's size in MiB.
    int hash_mb() const;
    // Forgets everything learnt from earlier searches (hash table, histories).
    void new_game();
    // Sets the position to search; its move history counts for repetition draws.
    void set_position(const Board& board);
    // Searches the position set last, blocking until a limit is reached or stop() is called;
    // on_info, when given, receives an info record after each iteration.
    SearchResult search(const SearchLimits& limits,
                        const std::function<void(const SearchInfo&)>& on_info = {});
    // Makes a running search() return promptly with its best move so far (thread-safe).
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace sparring
