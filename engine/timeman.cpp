#include "engine/timeman.h"

#include <algorithm>

namespace sparring {

TimeManager::TimeManager(const SearchLimits& limits, Color us, int game_ply)
    : start_(Clock::now()) {
    int overhead = std::max(0, limits.move_overhead_ms);
    if (limits.movetime_ms > 0) {
        timed_ = true;
        optimum_ms_ = maximum_ms_ = std::max(1, limits.movetime_ms - overhead);
        return;
    }
    if (limits.infinite || limits.time_ms[us] <= 0) return;
    timed_ = true;
    int time = limits.time_ms[us];
    int inc = std::max(0, limits.inc_ms[us]);
    // What can be spent without touching the margin kept for process and transfer delays.
    int available = std::max(1, time - overhead);
    int moves_left =
        limits.movestogo > 0 ? std::min(limits.movestogo, 40) : std::max(20, 40 - game_ply / 8);
    int optimum = available / moves_left + (inc < available ? inc * 3 / 4 : 0);
    int cap = moves_left == 1 ? available * 7 / 10 : available / 4;
    maximum_ms_ = std::max(1, std::min(cap, optimum * 5));
    optimum_ms_ = std::max(1, std::min(optimum, maximum_ms_));
}

int TimeManager::elapsed_ms() const {
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count());
}

bool TimeManager::may_start_iteration(double stability) const {
    if (!timed_) return true;
    if (optimum_ms_ == maximum_ms_) return elapsed_ms() < maximum_ms_;
    return elapsed_ms() < static_cast<int>(optimum_ms_ * 0.6 * stability);
}

bool TimeManager::must_stop() const {
    return timed_ && elapsed_ms() >= maximum_ms_;
}

}  // namespace sparring
