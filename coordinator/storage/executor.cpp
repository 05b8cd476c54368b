#include "coordinator/storage/executor.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "absl/strings/cord.h"
#include "common/log.h"
#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

namespace {

// Returns whether a failure is of the storage itself (disk full, read-only or failing file
// system, lock held too long) rather than of one job: the database may then have rolled back
// the whole transaction, and every job of it must be retried.
bool storage_fault(const StorageError& e) {
    return e.fault == StorageFault::full || e.fault == StorageFault::unwritable ||
           e.fault == StorageFault::busy;
}

// Returns the status a call gets for a storage fault: RESOURCE_EXHAUSTED for a full disk,
// UNAVAILABLE otherwise; both tell clients to retry, and the message what an operator fixes.
absl::Status fault_status(const std::string& what, const std::exception& e) {
    const auto* storage = dynamic_cast<const StorageError*>(&e);
    if (storage && storage->fault == StorageFault::full)
        return absl::ResourceExhaustedError(
            what + ": the database's file system is full (" + e.what() +
            "); nothing of this call was stored: retry once space is freed");
    if (storage && storage->fault == StorageFault::unwritable)
        return absl::UnavailableError(
            what + ": the database cannot be written (" + e.what() +
            "); nothing of this call was stored: retry once it is writable again");
    return absl::UnavailableError(what + ": " + e.what() + "; retry");
}

// Returns a vector holding one connection.
std::vector<std::unique_ptr<Storage>> one(std::unique_ptr<Storage> connection) {
    std::vector<std::unique_ptr<Storage>> connections;
    connections.push_back(std::move(connection));
    return connections;
}

}  // namespace

Executor::Executor(std::vector<std::unique_ptr<Storage>> connections, Options options)
    : connections_(std::move(connections)), options_(options) {
    if (connections_.empty() || (options_.write && connections_.size() != 1))
        throw std::invalid_argument("an executor needs a connection; a write executor exactly one");
    if (options_.max_batch == 0) throw std::invalid_argument("max_batch must be at least 1");
    completion_thread_ = std::thread([this] { run_completions(); });
    for (const std::unique_ptr<Storage>& connection : connections_)
        job_threads_.emplace_back([this, storage = connection.get()] { run_jobs(*storage); });
}

Executor::Executor(std::unique_ptr<Storage> connection, Options options)
    : Executor(one(std::move(connection)), options) {}

Executor::~Executor() {
    shutdown();
}

void Executor::submit(Job job, Done done, Deadline deadline) {
    enqueue(std::move(job), std::move(done), false, deadline);
}

void Executor::offer(Job job, Done done) {
    enqueue(std::move(job), std::move(done), true, kNoDeadline);
}

void Executor::enqueue(Job job, Done done, bool bounded, Deadline deadline) {
    absl::Status refused = absl::UnavailableError("the coordinator is shutting down");
    {
        std::lock_guard lock(mutex_);
        if (!stopping_ && bounded && options_.max_queued > 0 &&
            queue_.size() >= options_.max_queued) {
            refused = busy();
        } else if (!stopping_) {
            queue_.push_back({std::move(job), std::move(done), deadline});
            queued_.notify_one();
            return;
        }
    }
    done(std::move(refused));
}

absl::Status Executor::admit(Admission kind) {
    std::lock_guard lock(mutex_);
    if (stopping_) return absl::OkStatus();
    // Three quarters of the bounds for calls that start work (at least one place).
    const bool start = kind == Admission::start;
    const bool full = options_.max_queued > 0 &&
                      queue_.size() >= (start ? std::max<size_t>(1, options_.max_queued * 3 / 4)
                                              : options_.max_queued);
    // The wait bound sheds only past a floor of queued calls: on a machine whose commits take
    // nearly the bound by themselves, batches would otherwise shrink to a few jobs, each
    // paying a whole commit, and the writer would take far fewer calls.
    const bool slow =
        options_.max_wait.count() > 0 &&
        queue_.size() >= (start ? kWaitFloor * 3 / 4 : kWaitFloor) &&
        expected_wait(queue_.size()) > (start ? options_.max_wait * 3 / 4 : options_.max_wait);
    if (!full && !slow) return absl::OkStatus();
    return busy();
}

std::chrono::microseconds Executor::expected_wait(size_t queued) const {
    double fixed_us = 0, job_us = 0;
    {
        std::lock_guard lock(fit_mutex_);
        const CostFit& f = fit_;
        if (f.n <= 0 || f.b <= 0) return std::chrono::microseconds(0);
        const double spread = f.n * f.bb - f.b * f.b;
        // Batches of different sizes: the line through them; otherwise (or when the line says
        // something impossible) all of a batch's time counts per job, which only errs long.
        if (spread > 1e-6 * f.n * f.bb) {
            job_us = (f.n * f.bt - f.b * f.t) / spread;
            fixed_us = (f.t - job_us * f.b) / f.n;
        }
        if (!(job_us > 0) || !(fixed_us >= 0)) {
            job_us = f.t / f.b;
            fixed_us = 0;
        }
    }
    return std::chrono::microseconds(int64_t(fixed_us + job_us * double(queued + 1)));
}

void Executor::learn(size_t jobs, std::chrono::nanoseconds elapsed) {
    // About the last hundred batches count.
    constexpr double kKeep = 0.99;
    const double b = double(jobs);
    const double t = double(elapsed.count()) / 1000.0;
    std::lock_guard lock(fit_mutex_);
    CostFit& f = fit_;
    f.n = kKeep * f.n + 1;
    f.b = kKeep * f.b + b;
    f.t = kKeep * f.t + t;
    f.bb = kKeep * f.bb + b * b;
    f.bt = kKeep * f.bt + b * t;
}

std::optional<Executor::Deadline> Executor::last_shed() const {
    const int64_t ns = last_shed_ns_.load();
    if (ns == 0) return std::nullopt;
    return Deadline(std::chrono::nanoseconds(ns));
}

absl::Status Executor::busy() {
    // The time the queue takes to drain, stretched by how many calls were shed lately for
    // each place in the queue (kShedStretch times that many): clients that keep coming back
    // too early cost the coordinator almost as much as the calls it takes, so the more it
    // sheds the longer they are told to wait. Spread over ±50% so that the shed do not all
    // come back at once; within bounds, short enough that a burst does not leave the
    // coordinator idle. (1,000 simulated workers offering 20,000 reports/s, 64 queued at
    // most: a stretch of 10 shed 12% of the calls and took 1,310 reports/s at p99 80 ms; 1
    // shed 30% at 1,278/s, 4 shed 18% at 1,202/s, 33 shed 7% at 1,185/s, p99 88-95 ms.)
    constexpr double kShedStretch = 10;
    const int64_t second = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count();
    if (second != shed_second_) {
        shed_before_ = second == shed_second_ + 1 ? shed_now_ : 0;
        shed_now_ = 0;
        shed_second_ = second;
    }
    ++shed_now_;
    last_shed_ns_.store(
        std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count()));
    const int64_t drain_ms =
        options_.max_wait.count() > 0
            ? std::chrono::duration_cast<std::chrono::milliseconds>(expected_wait(queue_.size()))
                  .count()
            : int64_t(queue_.size()) * job_ns_.load() / 1'000'000;
    const double crowd =
        1.0 + kShedStretch * double(shed_now_ + shed_before_) / double(queue_.size() + 1);
    const double spread = 0.5 + double((shed_now_ * 0x9E3779B97F4A7C15ull) >> 54) / 1024.0;
    const int64_t wait_ms =
        std::clamp<int64_t>(int64_t(double(std::max<int64_t>(drain_ms, 20)) * crowd * spread), 20,
                            kMaxRetryAfter.count());
    absl::Status status =
        absl::ResourceExhaustedError("the coordinator is busy (" + std::to_string(queue_.size()) +
                                     " calls queued); retry in " + std::to_string(wait_ms) + " ms");
    status.SetPayload(kRetryAfterPayload, absl::Cord(std::to_string(wait_ms)));
    return status;
}

std::optional<std::chrono::milliseconds> Executor::retry_after(const absl::Status& status) {
    const auto payload = status.GetPayload(kRetryAfterPayload);
    if (!payload) return std::nullopt;
    int64_t ms = 0;
    for (char c : std::string(*payload)) {
        if (c < '0' || c > '9') return std::nullopt;
        ms = ms * 10 + (c - '0');
    }
    return std::chrono::milliseconds(ms);
}

void Executor::shutdown() {
    std::lock_guard serial(shutdown_mutex_);
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    queued_.notify_all();
    for (std::thread& thread : job_threads_)
        if (thread.joinable()) thread.join();
    {
        std::lock_guard lock(completion_mutex_);
        jobs_ended_ = true;
    }
    completed_.notify_all();
    if (completion_thread_.joinable()) completion_thread_.join();
}

void Executor::run_jobs(Storage& storage) {
    std::deque<Entry> batch;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // shutting down, and every job has run
            if (options_.gather.count() > 0 && queue_.size() < options_.max_batch && !stopping_)
                queued_.wait_for(lock, options_.gather, [this] {
                    return stopping_ || queue_.size() >= options_.max_batch;
                });
            while (!queue_.empty() && batch.size() < options_.max_batch) {
                batch.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        Completion completion = run_batch(storage, batch);
        batch.clear();
        {
            std::lock_guard lock(completion_mutex_);
            completions_.push_back(std::move(completion));
        }
        completed_.notify_one();
    }
}

Executor::Completion Executor::run_batch(Storage& storage, std::deque<Entry>& batch) {
    Completion completion;
    for (Entry& entry : batch) completion.dones.push_back(std::move(entry.done));
    const auto fail_all = [&](const absl::Status& status) {
        completion.statuses.assign(batch.size(), status);
        return std::move(completion);
    };
    const auto abandon = [&](const absl::Status& status) {
        try {
            storage.rollback();
        } catch (const std::exception&) {
        }
        return fail_all(status);
    };
    const auto start = std::chrono::steady_clock::now();
    try {
        storage.begin(options_.write);
    } catch (const std::exception& e) {
        return fail_all(fault_status("storage unavailable", e));
    }
    // Each job runs inside a savepoint, so a failing job leaves no trace and the rest commit.
    for (Entry& entry : batch) {
        absl::Status status;
        if (entry.deadline != kNoDeadline && std::chrono::steady_clock::now() >= entry.deadline) {
            // Its caller gave up waiting: running it would only delay the callers still waiting.
            ++expired_;
            completion.statuses.push_back(absl::DeadlineExceededError(
                "the call waited past its deadline for the database and was not run; retry"));
            continue;
        }
        try {
            storage.savepoint();
            status = entry.job(storage);
            if (status.ok())
                storage.release_savepoint();
            else
                storage.rollback_to_savepoint();
        } catch (const StorageError& e) {
            if (storage_fault(e)) return abandon(fault_status("storage failure", e));
            status = absl::InternalError(std::string("storage failure: ") + e.what());
            try {
                storage.rollback_to_savepoint();
            } catch (const std::exception&) {
            }
        } catch (const std::exception& e) {
            status = absl::InternalError(std::string("storage failure: ") + e.what());
            try {
                storage.rollback_to_savepoint();
            } catch (const std::exception&) {
            }
        } catch (...) {
            log_unexpected_exception("storage job");
            status = absl::InternalError("storage failure: the job failed unexpectedly");
            try {
                storage.rollback_to_savepoint();
            } catch (const std::exception&) {
            }
        }
        completion.statuses.push_back(std::move(status));
    }
    try {
        storage.commit();
    } catch (const std::exception& e) {
        return abandon(fault_status("storage commit failed", e));
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const int64_t per_job =
        int64_t(std::chrono::nanoseconds(elapsed).count()) / int64_t(batch.size());
    job_ns_.store((7 * job_ns_.load() + per_job) / 8);
    learn(batch.size(), std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
    if (observer_) observer_(batch.size(), elapsed);
    completion.committed = storage.take_committed();
    return completion;
}

void Executor::run_completions() {
    for (;;) {
        Completion completion;
        {
            std::unique_lock lock(completion_mutex_);
            completed_.wait(lock, [this] { return jobs_ended_ || !completions_.empty(); });
            if (completions_.empty()) return;
            completion = std::move(completions_.front());
            completions_.pop_front();
        }
        // A callback that throws would end the process from this thread: it is logged, and
        // the others of the batch still run.
        for (const std::function<void()>& fn : completion.committed) {
            try {
                fn();
            } catch (...) {
                log_unexpected_exception("storage commit callback");
            }
        }
        for (size_t i = 0; i < completion.dones.size(); ++i) {
            try {
                completion.dones[i](std::move(completion.statuses[i]));
            } catch (...) {
                log_unexpected_exception("storage completion");
            }
        }
    }
}

}  // namespace sparring::coordinator
