// Time management: how long to think about one move, from the clock, increment and
// moves to go, with a safety margin for the time lost outside the search.
#pragma once

#include <chrono>
#include <cstdint>

#include "engine/engine.h"

namespace sparring {

class TimeManager {
  public:
    using Clock = std::chrono::steady_clock;

    // Starts the clock and derives the soft and hard limits for the side to move.
    TimeManager(const SearchLimits& limits, Color us, int game_ply);

    // Milliseconds since the search started.
    int elapsed_ms() const;
    // Returns whether the search runs against a clock or a fixed move time.
    bool is_timed() const { return timed_; }
    // Returns whether a new iteration is still worth starting; stability scales the soft
    // limit (above 1 when the best move keeps changing, below when it holds).
    bool may_start_iteration(double stability) const;
    // Returns whether the hard limit has been reached and the search must stop now.
    bool must_stop() const;

  private:
    Clock::time_point start_;
    bool timed_ = false;
    int optimum_ms_ = 0;
    int maximum_ms_ = 0;
};

}  // namespace sparring
