#include "coordinator/web/live.h"

#include <vector>

namespace sparring::coordinator::web {

LiveHub::LiveHub(Reader reader, std::chrono::milliseconds interval)
    : reader_(std::move(reader)), interval_(interval), thread_([this] { loop(); }) {}

LiveHub::~LiveHub() {
    close();
    thread_.join();
}

void LiveHub::notify(int64_t run_id) {
    std::lock_guard lock(mutex_);
    const auto it = channels_.find(run_id);
    if (it == channels_.end() || it->second.viewers == 0 || it->second.dirty) return;
    it->second.dirty = true;
    work_.notify_one();
}

bool LiveHub::join(int64_t run_id) {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    Channel& channel = channels_[run_id];
    ++channel.viewers;
    ++viewers_;
    // The page may have been rendered before the latest change: read the run once more.
    channel.dirty = true;
    work_.notify_one();
    return true;
}

void LiveHub::leave(int64_t run_id) {
    std::lock_guard lock(mutex_);
    const auto it = channels_.find(run_id);
    if (it == channels_.end()) return;
    --viewers_;
    if (--it->second.viewers == 0) channels_.erase(it);
}

std::optional<LiveHub::Update> LiveHub::wait(int64_t run_id, uint64_t seen,
                                             std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    const auto newer = [&] {
        if (closed_) return true;
        const auto it = channels_.find(run_id);
        return it != channels_.end() && it->second.latest.sequence > seen;
    };
    if (!updated_.wait_for(lock, timeout, newer) || closed_) return std::nullopt;
    return channels_.at(run_id).latest;
}

size_t LiveHub::viewers() const {
    std::lock_guard lock(mutex_);
    return viewers_;
}

void LiveHub::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    work_.notify_all();
    updated_.notify_all();
}

bool LiveHub::closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
}

void LiveHub::loop() {
    std::unique_lock lock(mutex_);
    while (true) {
        work_.wait(lock, [this] {
            if (closed_) return true;
            for (const auto& [id, channel] : channels_)
                if (channel.dirty) return true;
            return false;
        });
        if (closed_) return;
        std::vector<int64_t> dirty;
        for (auto& [id, channel] : channels_)
            if (channel.dirty) {
                channel.dirty = false;
                dirty.push_back(id);
            }
        lock.unlock();
        for (const int64_t id : dirty) {
            std::optional<std::string> data = reader_(id);
            if (!data) continue;
            std::lock_guard publish(mutex_);
            const auto it = channels_.find(id);
            if (it == channels_.end()) continue;
            ++it->second.latest.sequence;
            it->second.latest.data = std::move(*data);
            updated_.notify_all();
        }
        // Changes arriving meanwhile wait for the next round: one read per run per interval.
        std::this_thread::sleep_for(interval_);
        lock.lock();
    }
}

}  // namespace sparring::coordinator::web
