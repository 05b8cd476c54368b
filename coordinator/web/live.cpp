#include "coordinator/web/live.h"

#include <utility>
#include <vector>

#include "common/log.h"

namespace sparring::coordinator::web {

std::optional<LiveHub::Update> LiveHub::Feed::wait(uint64_t seen,
                                                   std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    const auto newer = [&] { return closed_ || latest_.sequence > seen; };
    if (!updated_.wait_for(lock, timeout, newer) || closed_) return std::nullopt;
    return latest_;
}

uint64_t LiveHub::Feed::subscribe(Listener listener) {
    std::lock_guard lock(mutex_);
    const uint64_t id = next_listener_++;
    if (closed_)
        listener(nullptr);
    else if (latest_.sequence > 0)
        listener(&latest_);
    listeners_.emplace(id, std::move(listener));
    return id;
}

void LiveHub::Feed::unsubscribe(uint64_t id) {
    std::lock_guard lock(mutex_);
    listeners_.erase(id);
}

void LiveHub::Feed::publish(std::shared_ptr<const std::string> data) {
    {
        std::lock_guard lock(mutex_);
        ++latest_.sequence;
        latest_.data = std::move(data);
        // Under the lock, so that each listener gets the updates in order and a subscriber
        // never a stale one after a newer.
        for (const auto& [id, listener] : listeners_) listener(&latest_);
    }
    updated_.notify_all();
}

void LiveHub::Feed::close() {
    {
        std::lock_guard lock(mutex_);
        if (!closed_)
            for (const auto& [id, listener] : listeners_) listener(nullptr);
        closed_ = true;
    }
    updated_.notify_all();
}

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

std::shared_ptr<LiveHub::Feed> LiveHub::join(int64_t run_id) {
    std::lock_guard lock(mutex_);
    if (closed_) return nullptr;
    Channel& channel = channels_[run_id];
    ++channel.viewers;
    ++viewers_;
    // The page may have been rendered before the latest change: read the run once more.
    channel.dirty = true;
    work_.notify_one();
    return channel.feed;
}

void LiveHub::leave(int64_t run_id) {
    std::lock_guard lock(mutex_);
    const auto it = channels_.find(run_id);
    if (it == channels_.end()) return;
    --viewers_;
    if (--it->second.viewers == 0) channels_.erase(it);
}

size_t LiveHub::viewers() const {
    std::lock_guard lock(mutex_);
    return viewers_;
}

size_t LiveHub::viewers_of(int64_t run_id) const {
    std::lock_guard lock(mutex_);
    const auto it = channels_.find(run_id);
    return it == channels_.end() ? 0 : it->second.viewers;
}

void LiveHub::close() {
    std::vector<std::shared_ptr<Feed>> feeds;
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
        for (const auto& [id, channel] : channels_) feeds.push_back(channel.feed);
        work_.notify_all();
    }
    for (const auto& feed : feeds) feed->close();
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
        std::vector<std::pair<int64_t, std::shared_ptr<Feed>>> dirty;
        for (auto& [id, channel] : channels_)
            if (channel.dirty) {
                channel.dirty = false;
                dirty.emplace_back(id, channel.feed);
            }
        lock.unlock();
        for (const auto& [id, feed] : dirty) {
            // A feed whose viewers have all left meanwhile is published to and dropped. A reader
            // that throws costs its run this round, not the hub's thread (and the process).
            try {
                std::optional<std::string> data = reader_(id);
                if (data) feed->publish(std::make_shared<const std::string>(std::move(*data)));
            } catch (...) {
                log_unexpected_exception("live update of run " + std::to_string(id));
            }
        }
        // Changes arriving meanwhile wait for the next round: one read per run per interval.
        std::this_thread::sleep_for(interval_);
        lock.lock();
    }
}

}  // namespace sparring::coordinator::web
