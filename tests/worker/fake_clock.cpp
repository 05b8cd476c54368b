#include "tests/worker/fake_clock.h"

#include <algorithm>
#include <thread>

namespace sparring::worker {

namespace {

// An arbitrary start, far from zero on both clocks.
const Clock::TimePoint kStart = Clock::TimePoint() + std::chrono::hours(1000);
constexpr int64_t kStartUnixMs = 1'764'547'200'000;  // 2025-12-01

}  // namespace

Clock::TimePoint FakeClock::now() const {
    std::lock_guard lock(mutex_);
    return kStart + elapsed_;
}

int64_t FakeClock::unix_ms() const {
    std::lock_guard lock(mutex_);
    return kStartUnixMs + elapsed_.count();
}

bool FakeClock::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                           TimePoint deadline, const std::function<bool()>& pred) {
    auto me = std::make_shared<Waiter>(Waiter{lock.mutex(), &cv, &pred, deadline});
    {
        std::lock_guard guard(mutex_);
        waiters_.push_back(me);
    }
    bool satisfied = false;
    while (!(satisfied = pred()) && now() < deadline) {
        {
            std::lock_guard guard(mutex_);
            me->blocked = true;
        }
        cv.wait(lock);
        std::lock_guard guard(mutex_);
        me->blocked = false;
    }
    std::lock_guard guard(mutex_);
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), me));
    return satisfied;
}

void FakeClock::advance(std::chrono::milliseconds duration) {
    std::vector<std::shared_ptr<Waiter>> waiters;
    {
        std::lock_guard lock(mutex_);
        elapsed_ += duration;
        waiters = waiters_;
    }
    for (const auto& waiter : waiters) {
        // Taking the waiter's mutex first means it is inside cv.wait, so the wake is not lost.
        { std::lock_guard lock(*waiter->mutex); }
        waiter->cv->notify_all();
    }
}

bool FakeClock::settle(const std::function<bool()>& done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < give_up) {
        if (done()) return true;
        std::vector<std::shared_ptr<Waiter>> waiters;
        {
            std::lock_guard lock(mutex_);
            waiters = waiters_;
        }
        for (const auto& waiter : waiters) {
            // Holding the waiter's mutex, it cannot wake: blocked with its condition false
            // and its deadline ahead, it stays so until the clock moves.
            std::lock_guard hold(*waiter->mutex);
            bool blocked = false;
            {
                std::lock_guard lock(mutex_);
                blocked = waiter->blocked &&
                          std::find(waiters_.begin(), waiters_.end(), waiter) != waiters_.end();
            }
            if (blocked && !(*waiter->pred)() && now() < waiter->deadline) return true;
        }
        // Polls the waiters' state, which their threads set under no condition of ours.
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

bool FakeClock::step(std::chrono::milliseconds duration, const std::function<bool()>& done) {
    if (!settle(done)) return false;
    advance(duration);
    return settle(done);
}

}  // namespace sparring::worker
