#include "coordinator/executor.h"

#include <exception>
#include <string>

namespace sparring::coordinator {

Executor::Executor(std::unique_ptr<Storage> storage, bool write, size_t max_batch,
                   std::chrono::microseconds gather)
    : storage_(std::move(storage)),
      write_(write),
      max_batch_(max_batch),
      gather_(gather),
      thread_([this] { loop(); }) {}

Executor::~Executor() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void Executor::submit(Job job, Done done) {
    {
        std::lock_guard lock(mutex_);
        queue_.push_back({std::move(job), std::move(done)});
    }
    wake_.notify_one();
}

void Executor::loop() {
    std::deque<Entry> batch;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            if (gather_.count() > 0)
                wake_.wait_for(lock, gather_,
                               [this] { return stopping_ || queue_.size() >= max_batch_; });
            while (!queue_.empty() && batch.size() < max_batch_) {
                batch.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        run_batch(batch);
        batch.clear();
    }
}

void Executor::run_batch(std::deque<Entry>& batch) {
    std::vector<absl::Status> statuses;
    statuses.reserve(batch.size());
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
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(statuses[i]));
}

}  // namespace sparring::coordinator
