#include "coordinator/storage/executor.h"

#include <exception>
#include <string>
#include <thread>

namespace sparring::coordinator {

Executor::Executor(std::unique_ptr<Storage> storage, bool write, size_t max_batch,
                   std::chrono::microseconds gather)
    : storage_(std::move(storage)), write_(write), max_batch_(max_batch), gather_(gather) {}

void Executor::submit(Job job, Done done) {
    std::unique_lock lock(mutex_);
    queue_.push_back({std::move(job), std::move(done)});
    if (leading_) return;  // the leader will run it
    leading_ = true;
    std::deque<Entry> batch;
    while (!queue_.empty()) {
        if (gather_.count() > 0 && queue_.size() < max_batch_) {
            lock.unlock();
            std::this_thread::sleep_for(gather_);
            lock.lock();
        }
        while (!queue_.empty() && batch.size() < max_batch_) {
            batch.push_back(std::move(queue_.front()));
            queue_.pop_front();
        }
        lock.unlock();
        run_batch(batch);
        batch.clear();
        lock.lock();
    }
    leading_ = false;
}

void Executor::run_batch(std::deque<Entry>& batch) {
    std::vector<absl::Status> statuses;
    statuses.reserve(batch.size());
    const auto start = std::chrono::steady_clock::now();
    try {
        storage_->begin(write_);
    } catch (const std::exception& e) {
        for (Entry& entry : batch)
            entry.done(absl::UnavailableError(std::string("storage unavailable: ") + e.what()));
        return;
    }
    // Each job runs inside a savepoint, so a failing job leaves no trace and the rest commit.
    for (Entry& entry : batch) {
        absl::Status status;
        try {
            storage_->savepoint();
            status = entry.job(*storage_);
            if (status.ok())
                storage_->release_savepoint();
            else
                storage_->rollback_to_savepoint();
        } catch (const std::exception& e) {
            status = absl::InternalError(std::string("storage failure: ") + e.what());
            try {
                storage_->rollback_to_savepoint();
            } catch (const std::exception&) {
            }
        }
        statuses.push_back(std::move(status));
    }
    try {
        storage_->commit();
    } catch (const std::exception& e) {
        try {
            storage_->rollback();
        } catch (const std::exception&) {
        }
        for (Entry& entry : batch)
            entry.done(
                absl::UnavailableError(std::string("storage commit failed, retry: ") + e.what()));
        return;
    }
    if (observer_) observer_(batch.size(), std::chrono::steady_clock::now() - start);
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(statuses[i]));
}

}  // namespace sparring::coordinator
