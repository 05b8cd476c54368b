// Each run's worker fits, kept in memory for the quarantine check of lease requests
// (leases.cpp, with --quarantine-p): one worker's fit is a test against the rest of its CPU
// class, so it needs every worker's counts of the run, and reading them on every request made
// each call cost as much as the run has workers (issue 53). The fits are computed again when
// the run's counted pairs changed — at once while the run has few workers, at most every
// kMaxAgeMs once it has many — so a small run's quarantine is as prompt as before and a run
// played by thousands of workers reads their rows a few times a minute, not per call.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

class RunFits {
  public:
    // Runs with at least this many workers are computed again at most every kMaxAgeMs.
    static constexpr size_t kManyWorkers = 256;
    static constexpr int64_t kMaxAgeMs = 5'000;

    struct Entry {
        int64_t pairs = 0;                  // the run's counted pairs when computed
        int64_t computed_ms = 0;            // when
        std::map<int64_t, WorkerFit> fits;  // by worker
    };
    // A run is known by its id and creation time, as in RunVersions.
    using Key = std::pair<int64_t, int64_t>;

    // Returns the fits kept for a run if they may still serve: computed at the same counted
    // pairs, or, for a run of many workers, less than kMaxAgeMs ago; else null.
    std::shared_ptr<const Entry> find(const Key& key, int64_t pairs, int64_t now_ms) const {
        std::lock_guard lock(mutex_);
        const auto it = runs_.find(key);
        if (it == runs_.end()) return nullptr;
        const Entry& e = *it->second;
        const bool same = e.pairs == pairs;
        const bool young = e.fits.size() >= kManyWorkers && now_ms - e.computed_ms < kMaxAgeMs &&
                           now_ms >= e.computed_ms;
        return same || young ? it->second : nullptr;
    }
    // Keeps a run's fits (all are forgotten past kMaxRuns: the active runs come back).
    void insert(const Key& key, std::shared_ptr<const Entry> entry) {
        std::lock_guard lock(mutex_);
        if (runs_.size() >= kMaxRuns) runs_.clear();
        runs_[key] = std::move(entry);
    }

  private:
    static constexpr size_t kMaxRuns = 1024;
    mutable std::mutex mutex_;
    std::map<Key, std::shared_ptr<const Entry>> runs_;
};

}  // namespace sparring::coordinator
