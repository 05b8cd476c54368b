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
#include <cstdint>
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

// Which calls a full queue refuses first (see Executor::admit()).
enum class Admission {
    // Calls that finish or keep work already handed out (a report of finished games, a
    // heartbeat, a lease handed back) and users' calls: admitted up to the queue's bound.
    keep,
    // Calls that only start new work (a registration, a request for a lease): admitted while
    // the queue is below three quarters of its bounds, so that under overload they are refused
    // first and the reports of games already played still get in.
    start,
};

class Executor {
  public:
    using Job = std::function<absl::Status(Storage&)>;
    using Done = std::function<void(absl::Status)>;
    using Deadline = std::chrono::steady_clock::time_point;
    // A job without a caller waiting on a deadline.
    static constexpr Deadline kNoDeadline = Deadline::max();
    // Calls queued below which max_wait sheds none (three quarters of it for Admission::start).
    static constexpr size_t kWaitFloor = 64;
    // The longest retry-after a shed call is told.
    static constexpr std::chrono::milliseconds kMaxRetryAfter{5'000};
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
        // The wait a call admitted now is expected to have before its transaction commits, at
        // most (admit()): the executor learns a transaction's fixed cost (the commit's sync)
        // and each job's cost from the batches it runs, and sheds a call whose batch would not
        // commit within this. Unlike a bound on jobs, it lets batches grow as large as the
        // wait allows (a commit's cost is shared by its batch). 0: no such bound.
        std::chrono::milliseconds max_wait{0};
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
    // A job whose deadline (its caller's: past it the caller no longer waits for the answer)
    // has passed when its turn comes is not run: done receives DEADLINE_EXCEEDED, and the
    // writer's time goes to callers still waiting.
    void submit(Job job, Done done, Deadline deadline = kNoDeadline);
    // Queues a job like submit() unless max_queued jobs are waiting: then done receives
    // RESOURCE_EXHAUSTED with a retry-after at once, on the calling thread. For the calls of
    // clients, which retry; the coordinator's own jobs use submit().
    void offer(Job job, Done done);
    // Returns what offer() would answer a job now if it sheds it (RESOURCE_EXHAUSTED with a
    // retry-after), counted as shed, or OK if there is room: for a caller that can refuse a
    // call before the work of reading its request, and then submit() it. A call that only
    // starts work (Admission::start) is refused from three quarters of the bounds on.
    absl::Status admit(Admission kind = Admission::keep);
    // Sets the observer of committed transactions (called on the job threads); call it before
    // the first submit.
    void observe(Observer observer) { observer_ = std::move(observer); }
    // Stops taking jobs, runs every job already queued and its completion, and joins the
    // threads. Idempotent.
    void shutdown();
    // Returns when a call was last shed (offer() or admit()), if ever.
    std::optional<Deadline> last_shed() const;
    // Returns the jobs not run because their caller's deadline had passed.
    uint64_t expired_jobs() const { return expired_.load(); }
    // Returns the expected time from now until a job queued behind `queued` others has
    // committed: a transaction's fixed cost and each job's, as learnt from recent batches.
    std::chrono::microseconds expected_wait(size_t queued) const;

    // Returns the wait a shed job's status asks for (its kRetryAfterPayload), if any.
    static std::optional<std::chrono::milliseconds> retry_after(const absl::Status& status);
    // The payload type URL of a shed job's status: the wait in milliseconds, as text.
    static constexpr char kRetryAfterPayload[] = "sparring/retry-after-ms";

  private:
    // Queues a job, bounded by max_queued or not (see submit() and offer()).
    void enqueue(Job job, Done done, bool bounded, Deadline deadline);
    // Returns the status of a call shed because the queue is full, and counts it (caller
    // holds mutex_).
    absl::Status busy();

    struct Entry {
        Job job;
        Done done;
        Deadline deadline = kNoDeadline;
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
    // The cost of a batch of b jobs, F + b·j, fitted by least squares over recent batches
    // (each weighed less by every later one): sums of 1, b, t, b² and b·t (t in µs).
    struct CostFit {
        double n = 0, b = 0, t = 0, bb = 0, bt = 0;
    };
    mutable std::mutex fit_mutex_;
    CostFit fit_;
    // Records a committed batch of `jobs` that took `elapsed`.
    void learn(size_t jobs, std::chrono::nanoseconds elapsed);
    // Jobs shed in the current second and the one before (under mutex_), for the retry-after.
    int64_t shed_second_ = 0;
    uint64_t shed_now_ = 0;
    uint64_t shed_before_ = 0;
    bool stopping_ = false;
    std::atomic<int64_t> last_shed_ns_{0};  // steady clock; 0: never
    std::atomic<uint64_t> expired_{0};

    std::mutex completion_mutex_;
    std::condition_variable completed_;  // a completion arrived, or the job threads ended
    std::deque<Completion> completions_;
    bool jobs_ended_ = false;

    std::mutex shutdown_mutex_;  // serialises shutdown()
    std::vector<std::thread> job_threads_;
    std::thread completion_thread_;
};

}  // namespace sparring::coordinator
