// A clock that moves only when a test advances it, and can tell when the thread waiting on it
// has nothing to do until then, so that tests of timing need no real sleeps.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "worker/clock.h"

namespace sparring::worker {

class FakeClock final : public Clock {
  public:
    TimePoint now() const override;
    int64_t unix_ms() const override;
    bool wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                    TimePoint deadline, const std::function<bool()>& pred) override;

    // Moves time forward, waking whoever waits for a deadline it reaches.
    void advance(std::chrono::milliseconds duration);
    // Returns once a thread waits on this clock with nothing to do before its deadline, or
    // done() holds (no thread will wait any more); false if neither within five real seconds.
    bool settle(const std::function<bool()>& done);
    // Settles, advances, and settles again.
    bool step(std::chrono::milliseconds duration, const std::function<bool()>& done);

  private:
    struct Waiter {
        std::mutex* mutex;
        std::condition_variable* cv;
        const std::function<bool()>* pred;
        TimePoint deadline;
        bool blocked = false;
    };

    mutable std::mutex mutex_;
    std::chrono::milliseconds elapsed_{0};
    std::vector<std::shared_ptr<Waiter>> waiters_;
};

}  // namespace sparring::worker
