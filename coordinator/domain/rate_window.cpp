#include "coordinator/domain/rate_window.h"

namespace sparring::coordinator {

bool RateWindow::admit(std::string_view user, int limit, int64_t now_ms) {
    std::lock_guard lock(mutex_);
    auto found = actions_.find(user);
    if (found == actions_.end())
        found = actions_.emplace(std::string(user), std::deque<int64_t>()).first;
    std::deque<int64_t>& times = found->second;
    while (!times.empty() && times.front() <= now_ms - window_ms_) times.pop_front();
    if (int64_t(times.size()) >= int64_t(limit)) return false;
    times.push_back(now_ms);
    // Users who stopped acting leave the map once a window has passed since their last action.
    for (auto it = actions_.begin(); it != actions_.end();)
        it = !it->second.empty() && it->second.back() <= now_ms - window_ms_ ? actions_.erase(it)
                                                                             : std::next(it);
    return true;
}

}  // namespace sparring::coordinator
