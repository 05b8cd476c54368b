// Runs storage jobs one at a time on one connection, with group commit: the thread that
// finds the executor idle becomes the leader and runs, in its own thread, every job queued
// until the queue is empty, each batch of them in one transaction; the others only queue
// their job. A job's completion runs after the transaction holding it has committed.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "coordinator/storage.h"

namespace sparring::coordinator {

class Executor {
  public:
    using Job = std::function<absl::Status(Storage&)>;
    using Done = std::function<void(absl::Status)>;

    // Takes the storage connection; write executors take the write lock per batch of jobs.
    Executor(std::unique_ptr<Storage> storage, bool write, size_t max_batch);

    // Runs or queues a job; done receives its status once the transaction holding it has
    // committed (or an UNAVAILABLE status if the commit failed), on the leader's thread.
    void submit(Job job, Done done);

  private:
    struct Entry {
        Job job;
        Done done;
    };

    // Runs one batch in one transaction and completes its jobs.
    void run_batch(std::deque<Entry>& batch);

    std::unique_ptr<Storage> storage_;
    const bool write_;
    const size_t max_batch_;
    std::mutex mutex_;
    std::deque<Entry> queue_;
    bool leading_ = false;  // a thread is running batches
};

}  // namespace sparring::coordinator
