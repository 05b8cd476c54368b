// The workers each token has seen lately, in memory: Register's cap on a token's active workers
// counts them in O(log n) instead of scanning the workers table (which keeps every worker ever
// registered) on every registration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

namespace sparring::coordinator {

class ActiveWorkers {
  public:
    // Whether the table was filled from storage (the coordinator's start or first worker call).
    bool seeded() const;
    // Marks the table filled.
    void mark_seeded();
    // Records that a worker of a token was seen at ms (a registration or any later call).
    void seen(int64_t worker_id, int64_t token_id, int64_t ms);
    // Returns the workers held (counted or not yet swept).
    size_t size() const;
    // Returns how many workers of a token were last seen at or after since_ms. The times asked
    // are expected not to go back: what is older than since_ms is forgotten.
    int64_t count(int64_t token_id, int64_t since_ms);

  private:
    struct Token {
        std::map<int64_t, int64_t> seen_at;  // last-seen time -> workers last seen then
        int64_t live = 0;                    // workers in seen_at
        int64_t forgotten_before = std::numeric_limits<int64_t>::min();
    };
    struct Seen {
        int64_t token_id = 0;
        int64_t ms = 0;
    };

    // Removes a worker's last sighting from its token's counts, if still counted.
    void forget(const Seen& last);
    // Drops the workers no longer counted (seen before their token's forgotten time), so that
    // a fleet that registers anew on every restart does not grow the table for ever.
    void sweep();

    mutable std::mutex mutex_;
    bool seeded_ = false;
    std::unordered_map<int64_t, Seen> workers_;
    std::unordered_map<int64_t, Token> tokens_;
    size_t sweep_at_ = 1024;  // workers_ size that starts the next sweep
};

}  // namespace sparring::coordinator
