#include "coordinator/domain/events.h"

#include <algorithm>
#include <utility>

#include "common/log.h"

namespace sparring::coordinator {

EventBus::Subscription EventBus::subscribe_all(Handler handler) {
    auto subscriber = std::make_shared<Subscriber>();
    subscriber->handler = std::move(handler);
    std::lock_guard lock(mutex_);
    subscribers_.push_back(subscriber);
    return Subscription(this, std::move(subscriber));
}

void EventBus::publish(const Event& event) {
    std::vector<std::shared_ptr<Subscriber>> subscribers;
    {
        std::lock_guard lock(mutex_);
        subscribers = subscribers_;
    }
    // Delivered outside the bus's lock, so a subscriber may come or go meanwhile. A subscriber
    // that throws misses this event alone: the others get it, and the thread that publishes
    // (the write executor's, after a commit) goes on.
    for (const std::shared_ptr<Subscriber>& subscriber : subscribers) {
        std::lock_guard lock(subscriber->mutex);
        if (!subscriber->handler) continue;
        try {
            subscriber->handler(event);
        } catch (...) {
            log_unexpected_exception("event subscriber");
        }
    }
}

EventBus::Subscription& EventBus::Subscription::operator=(Subscription&& other) noexcept {
    if (this != &other) {
        reset();
        bus_ = std::exchange(other.bus_, nullptr);
        subscriber_ = std::move(other.subscriber_);
    }
    return *this;
}

EventBus::Subscription::~Subscription() {
    reset();
}

void EventBus::Subscription::reset() {
    if (!subscriber_) return;
    {
        std::lock_guard lock(bus_->mutex_);
        std::erase(bus_->subscribers_, subscriber_);
    }
    {
        std::lock_guard lock(subscriber_->mutex);
        subscriber_->handler = nullptr;
    }
    subscriber_.reset();
    bus_ = nullptr;
}

}  // namespace sparring::coordinator
