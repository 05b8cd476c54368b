// Runs storage jobs one at a time on a thread of their own, each batch of queued jobs in one
// transaction (group commit): a job's effects are committed before its completion runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "coordinator/storage.h"

namespace sparring::coordinator {

class Executor {
  public:
    using Job = std::function<absl::Status(Storage&)>;
    using Done = std::function<void(absl::Status)>;

    // Takes the storage connection; write executors take the write lock per batch of jobs.
    // Once a job arrives, the executor waits up to `gather` for more to share its commit
    // (fewer page writes and syncs per job), unless max_batch jobs are already queued.
    Executor(std::unique_ptr<Storage> storage, bool write, size_t max_batch,
             std::chrono::microseconds gather);
    // Runs the jobs still queued, then stops the thread.
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Queues a job; done receives its status once the transaction holding it has committed
    // (or an UNAVAILABLE status if the commit failed), on the executor's thread.
    void submit(Job job, Done done);

  private:
    struct Entry {
        Job job;
        Done done;
    };

    // Takes batches of jobs off the queue until stopped and drained.
    void loop();
    // Runs one batch in one transaction and completes its jobs.
    void run_batch(std::deque<Entry>& batch);

    std::unique_ptr<Storage> storage_;
    const bool write_;
    const size_t max_batch_;
    const std::chrono::microseconds gather_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Entry> queue_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace sparring::coordinator
