// Each user's actions over a sliding window of time, to refuse those past a bound per window
// (submissions and modifications per minute, docs/service.md#limits-per-user).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace sparring::coordinator {

class RateWindow {
  public:
    explicit RateWindow(int64_t window_ms) : window_ms_(window_ms) {}

    // Returns whether the user may act at now_ms, having acted fewer than limit times in the
    // window before it, and records the action when they may (a refusal records nothing).
    bool admit(std::string_view user, int limit, int64_t now_ms);

  private:
    int64_t window_ms_;
    std::mutex mutex_;
    std::map<std::string, std::deque<int64_t>, std::less<>> actions_;  // per user, oldest first
};

}  // namespace sparring::coordinator
