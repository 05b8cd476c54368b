// The two versions a run plays, kept in memory: a run's versions never change, and a lease
// request read both of them again (with the subqueries of their engine files and builds) once
// for the scheduler's view of the run and once more for the grant.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

class RunVersions {
  public:
    struct Pair {
        Version test;
        Version base;
    };
    // A run is known by its id and creation time, as in the book cache: an id a rolled-back
    // submission used and a later run took again is another run.
    using Key = std::pair<int64_t, int64_t>;

    // Returns the versions kept for a run, or null.
    std::shared_ptr<const Pair> find(const Key& key) const {
        std::lock_guard lock(mutex_);
        const auto it = runs_.find(key);
        return it == runs_.end() ? nullptr : it->second;
    }
    // Keeps a run's versions (all are forgotten past kMaxRuns: the active runs come back).
    void insert(const Key& key, std::shared_ptr<const Pair> versions) {
        std::lock_guard lock(mutex_);
        if (runs_.size() >= kMaxRuns) runs_.clear();
        runs_[key] = std::move(versions);
    }

  private:
    static constexpr size_t kMaxRuns = 4096;
    mutable std::mutex mutex_;
    std::map<Key, std::shared_ptr<const Pair>> runs_;
};

}  // namespace sparring::coordinator
