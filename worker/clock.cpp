#include "worker/clock.h"

#include "common/dates.h"

namespace sparring::worker {

Clock::TimePoint SystemClock::now() const {
    return std::chrono::steady_clock::now();
}

int64_t SystemClock::unix_ms() const {
    return unix_now_ms();
}

bool SystemClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                             TimePoint deadline, const std::function<bool()>& pred) {
    return cv.wait_until(lock, deadline, pred);
}

}  // namespace sparring::worker
