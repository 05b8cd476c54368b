#include "worker/run_backoff.h"

namespace sparring::worker {

namespace {

constexpr size_t kMaxRuns = 1024;  // failing runs remembered at once

}  // namespace

using std::chrono::milliseconds;

RunBackoff::RunBackoff(milliseconds first, milliseconds cap, uint64_t seed)
    : first_(first), cap_(cap), seed_(seed) {}

milliseconds RunBackoff::failed(int64_t run_id, Clock::TimePoint now) {
    if (runs_.size() >= kMaxRuns && !runs_.count(run_id))
        std::erase_if(runs_, [now](const auto& entry) { return entry.second.until <= now; });
    if (runs_.size() >= kMaxRuns && !runs_.count(run_id)) runs_.erase(runs_.begin());
    auto it = runs_.find(run_id);
    if (it == runs_.end())
        it = runs_.emplace(run_id, Entry{Backoff(first_, cap_, seed_ ^ uint64_t(run_id)), now, 0})
                 .first;
    const milliseconds delay = it->second.backoff.next();
    it->second.until = now + delay;
    ++it->second.failures;
    return delay;
}

void RunBackoff::succeeded(int64_t run_id) {
    runs_.erase(run_id);
}

std::vector<int64_t> RunBackoff::avoided(Clock::TimePoint now) const {
    std::vector<int64_t> ids;
    for (const auto& [id, entry] : runs_)
        if (entry.until > now) ids.push_back(id);
    return ids;
}

std::optional<Clock::TimePoint> RunBackoff::avoided_until(int64_t run_id,
                                                          Clock::TimePoint now) const {
    const auto it = runs_.find(run_id);
    if (it == runs_.end() || it->second.until <= now) return std::nullopt;
    return it->second.until;
}

int RunBackoff::failures(int64_t run_id) const {
    const auto it = runs_.find(run_id);
    return it == runs_.end() ? 0 : it->second.failures;
}

}  // namespace sparring::worker
