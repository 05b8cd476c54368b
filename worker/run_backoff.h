// Runs whose leases keep failing on this worker: each failed lease doubles how long the
// worker avoids the run (capped, with jitter), so that a run it cannot play costs a few lease
// rows instead of thousands; a lease of the run that ends well forgets its failures.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "worker/clock.h"
#include "worker/retry.h"

namespace sparring::worker {

class RunBackoff {
  public:
    RunBackoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, uint64_t seed);

    // Records a failed lease of a run at now; returns how long the run is now avoided.
    std::chrono::milliseconds failed(int64_t run_id, Clock::TimePoint now);
    // Forgets a run's failures (a lease of it ended well).
    void succeeded(int64_t run_id);
    // Returns the runs avoided at now, in id order.
    std::vector<int64_t> avoided(Clock::TimePoint now) const;
    // Returns when a run stops being avoided, if it is avoided at now.
    std::optional<Clock::TimePoint> avoided_until(int64_t run_id, Clock::TimePoint now) const;
    // Returns the number of failed leases in a row of a run.
    int failures(int64_t run_id) const;

  private:
    struct Entry {
        Backoff backoff;
        Clock::TimePoint until;
        int failures = 0;
    };

    std::chrono::milliseconds first_;
    std::chrono::milliseconds cap_;
    uint64_t seed_;
    std::map<int64_t, Entry> runs_;
};

}  // namespace sparring::worker
