#include "coordinator/domain/rate_limit.h"

#include <algorithm>

namespace sparring::coordinator {

RateLimit::RateLimit(size_t limit, std::chrono::seconds window, size_t max_keys)
    : limit_(limit), window_(window), max_keys_(max_keys) {}

std::chrono::seconds RateLimit::wait(const std::string& key, Clock::time_point now) const {
    std::lock_guard lock(mutex_);
    return wait_locked(key, now);
}

void RateLimit::count(const std::string& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    count_locked(key, now);
}

bool RateLimit::admit(const std::string& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (wait_locked(key, now) > std::chrono::seconds(0)) return false;
    count_locked(key, now);
    return true;
}

std::chrono::seconds RateLimit::wait_locked(const std::string& key, Clock::time_point now) const {
    const auto it = events_.find(key);
    if (it == events_.end()) return std::chrono::seconds(0);
    const std::deque<Clock::time_point>& times = it->second;
    // The events of the window, newest last: the key waits until the limit-th newest leaves.
    const auto first_in_window =
        std::find_if(times.begin(), times.end(), [&](auto t) { return t > now - window_; });
    if (size_t(times.end() - first_in_window) < limit_) return std::chrono::seconds(0);
    const auto leaves = *(times.end() - std::ptrdiff_t(limit_)) + window_;
    return std::chrono::ceil<std::chrono::seconds>(leaves - now);
}

void RateLimit::count_locked(const std::string& key, Clock::time_point now) {
    auto it = events_.find(key);
    if (it == events_.end()) {
        if (events_.size() >= max_keys_)
            std::erase_if(events_, [&](const auto& entry) {
                return entry.second.empty() || entry.second.back() <= now - window_;
            });
        if (events_.size() >= max_keys_) return;
        it = events_.emplace(key, std::deque<Clock::time_point>()).first;
    }
    std::deque<Clock::time_point>& times = it->second;
    times.push_back(now);
    while (times.size() > limit_ || (!times.empty() && times.front() <= now - window_))
        times.pop_front();
}

}  // namespace sparring::coordinator
