// Runs storage jobs on threads of its own, so that the threads submitting them (gRPC callback
// threads) never wait on SQLite. Each thread owns one connection and commits batches: it
// takes the queued jobs (waiting `gather` first for more to arrive) and runs them in one
// transaction, one savepoint per job (group commit). A write executor has one such thread. A
// completion thread then runs, in commit order, each committed transaction's deferred work
// (Storage::after_commit: the domain events) and the completions of its jobs, so that the
// threads running jobs never wait on a completion either.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/domain/storage.h"

namespace sparring::coordinator {

class Executor {
  public:
    using Job = std::function<absl::Status(Storage&)>;
    using Done = std::function<void(absl::Status)>;
    // Told of each committed transaction: its jobs and its time from begin to commit.
    using Observer = std::function<void(size_t jobs, std::chrono::nanoseconds elapsed)>;

    struct Options {
        bool write = false;      // write transactions, which take the write lock at once
        size_t max_batch = 512;  // jobs per transaction, at most
        // Waiting before each batch lets concurrent jobs share a commit: fewer page writes
        // and syncs per job.
        std::chrono::microseconds gather{0};
        // Jobs waiting at most for offer(): past it a job offered is shed at once with
        // RESOURCE_EXHAUSTED and a retry-after (see retry_after()), so that the jobs taken
        // are not slowed down by a queue without end. 0: no bound.
        size_t max_queued = 0;
    };

    // Starts one thread per connection; a write executor takes exactly one connection.
    // Throws std::invalid_argument otherwise.
    Executor(std::vector<std::unique_ptr<Storage>> connections, Options options);
    // Starts one thread on the connection.
    Executor(std::unique_ptr<Storage> connection, Options options);
    // Shuts down (see shutdown()).
    ~Executor();

    // Queues a job and returns; done receives its status on the completion thread once the
    // transaction holding it has committed, or an UNAVAILABLE status if it could not begin or
    // commit. After shutdown, done receives UNAVAILABLE at once, on the calling thread. A
    // completion must not wait for another job of the same executor.
    void submit(Job job, Done done);
    // Queues a job like submit() unless max_queued jobs are waiting: then done receives
    // RESOURCE_EXHAUSTED with a retry-after at once, on the calling thread. For the calls of
    // clients, which retry; the coordinator's own jobs use submit().
    void offer(Job job, Done done);
    // Returns what offer() would answer a job now if it sheds it (RESOURCE_EXHAUSTED with a
    // retry-after), counted as shed, or OK if there is room: for a caller that can refuse a
    // call before the work of reading its request.
    absl::Status admit();
    // Sets the observer of committed transactions (called on the job threads); call it before
    // the first submit.
    void observe(Observer observer) { observer_ = std::move(observer); }
    // Stops taking jobs, runs every job already queued and its completion, and joins the
    // threads. Idempotent.
    void shutdown();

    // Returns the wait a shed job's status asks for (its kRetryAfterPayload), if any.
    static std::optional<std::chrono::milliseconds> retry_after(const absl::Status& status);
    // The payload type URL of a shed job's status: the wait in milliseconds, as text.
    static constexpr char kRetryAfterPayload[] = "sparring/retry-after-ms";

  private:
    // Queues a job, bounded by max_queued or not (see submit() and offer()).
    void enqueue(Job job, Done done, bool bounded);
    // Returns the status of a job shed because the queue is full, and counts it (caller
    // holds mutex_).
    absl::Status busy();

    struct Entry {
        Job job;
        Done done;
    };
    // A committed (or failed) batch waiting for the completion thread.
    struct Completion {
        std::vector<std::function<void()>> committed;  // deferred by the transaction
        std::vector<Done> dones;
        std::vector<absl::Status> statuses;
    };

    // Takes and runs batches on one connection until shut down and drained.
    void run_jobs(Storage& storage);
    // Runs one batch in one transaction and returns what completes it.
    Completion run_batch(Storage& storage, std::deque<Entry>& batch);
    // Runs completions in order until the job threads have ended and none is left.
    void run_completions();

    std::vector<std::unique_ptr<Storage>> connections_;
    const Options options_;
    Observer observer_;

    std::mutex mutex_;
    std::condition_variable queued_;  // a job arrived, or shutting down
    std::deque<Entry> queue_;
    std::atomic<int64_t> job_ns_{0};  // recent mean time per job, for the retry-after
    // Jobs shed in the current second and the one before (under mutex_), for the retry-after.
    int64_t shed_second_ = 0;
    uint64_t shed_now_ = 0;
    uint64_t shed_before_ = 0;
    bool stopping_ = false;

    std::mutex completion_mutex_;
    std::condition_variable completed_;  // a completion arrived, or the job threads ended
    std::deque<Completion> completions_;
    bool jobs_ended_ = false;

    std::mutex shutdown_mutex_;  // serialises shutdown()
    std::vector<std::thread> job_threads_;
    std::thread completion_thread_;
};

}  // namespace sparring::coordinator
