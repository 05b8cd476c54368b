// Time as a lease session sees it: a steady clock for intervals and deadlines, the wall clock
// for the coordinator's expiry times, and waits that end early when a condition holds. Tests
// substitute a clock they advance by hand.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace sparring::worker {

class Clock {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    virtual ~Clock() = default;
    // Returns the current time on a clock that never goes back.
    virtual TimePoint now() const = 0;
    // Returns the wall-clock time in milliseconds since the Unix epoch.
    virtual int64_t unix_ms() const = 0;
    // Waits on cv, lock held, until pred() holds or now() reaches deadline; returns pred().
    virtual bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                            TimePoint deadline, const std::function<bool()>& pred) = 0;
};

// The machine's clocks.
class SystemClock final : public Clock {
  public:
    TimePoint now() const override;
    int64_t unix_ms() const override;
    bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                    TimePoint deadline, const std::function<bool()>& pred) override;
};

}  // namespace sparring::worker
