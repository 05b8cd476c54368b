// A sliding-window count of events per key, for the limits of a user's or an address's calls.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sparring::coordinator {

// Counts the events of each key (a client address, a user) over a sliding window and says
// when a key has had its limit: the dashboard's logins, a user's submissions and changes of
// runs. Thread-safe.
class RateLimit {
  public:
    using Clock = std::chrono::steady_clock;
    // At most max_keys keys are followed: past them (after dropping the quiet ones), a new
    // key is not counted, so a flood from many addresses costs bounded memory.
    RateLimit(size_t limit, std::chrono::seconds window, size_t max_keys = 100'000);

    // Returns how long a key must wait until it may go on: zero while it has had fewer than
    // the limit's events in the last window.
    std::chrono::seconds wait(const std::string& key, Clock::time_point now = Clock::now()) const;
    // Counts an event of a key.
    void count(const std::string& key, Clock::time_point now = Clock::now());
    // Counts an event of a key and returns true when the key may go on (wait() is zero), in one
    // step; a refusal counts nothing.
    bool admit(const std::string& key, Clock::time_point now = Clock::now());

  private:
    // wait() and count() with the mutex held.
    std::chrono::seconds wait_locked(const std::string& key, Clock::time_point now) const;
    void count_locked(const std::string& key, Clock::time_point now);

    const size_t limit_;
    const Clock::duration window_;
    const size_t max_keys_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::deque<Clock::time_point>> events_;  // oldest first
};

}  // namespace sparring::coordinator
