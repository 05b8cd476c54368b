// Runs storage jobs one at a time on one connection, with group commit: the thread that
// finds the executor idle becomes the leader; it waits `gather` for more jobs to arrive, runs
// every queued job in one transaction, and goes on until the queue is empty. Other threads
// only queue their job. A job's completion runs after the transaction holding it commits.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "coordinator/storage/storage.h"

namespace sparring::coordinator {

class Executor {
  public:
    using Job = std::function<absl::Status(Storage&)>;
    using Done = std::function<void(absl::Status)>;
    // Told of each committed transaction: its jobs and its time from begin to commit.
    using Observer = std::function<void(size_t jobs, std::chrono::nanoseconds elapsed)>;

    // Takes the storage connection; write executors take the write lock per batch of jobs.
    // Waiting `gather` before each batch lets concurrent jobs share a commit: fewer page
    // writes and syncs per job.
    Executor(std::unique_ptr<Storage> storage, bool write, size_t max_batch,
             std::chrono::microseconds gather);

    // Runs or queues a job; done receives its status once the transaction holding it has
    // committed (or an UNAVAILABLE status if the commit failed), on the leader's thread.
    void submit(Job job, Done done);
    // Sets the observer of committed transactions; call it before the first submit.
    void observe(Observer observer) { observer_ = std::move(observer); }

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
    const std::chrono::microseconds gather_;
    std::mutex mutex_;
    std::deque<Entry> queue_;
    Observer observer_;
    bool leading_ = false;  // a thread is running batches
};

}  // namespace sparring::coordinator
