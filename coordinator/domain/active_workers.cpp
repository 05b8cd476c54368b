#include "coordinator/domain/active_workers.h"

#include <algorithm>

namespace sparring::coordinator {

bool ActiveWorkers::seeded() const {
    std::lock_guard lock(mutex_);
    return seeded_;
}

void ActiveWorkers::mark_seeded() {
    std::lock_guard lock(mutex_);
    seeded_ = true;
}

void ActiveWorkers::forget(const Seen& last) {
    Token& token = tokens_[last.token_id];
    if (last.ms < token.forgotten_before) return;  // already dropped with its time
    const auto at = token.seen_at.find(last.ms);
    if (at == token.seen_at.end()) return;
    if (--at->second == 0) token.seen_at.erase(at);
    --token.live;
}

size_t ActiveWorkers::size() const {
    std::lock_guard lock(mutex_);
    return workers_.size();
}

void ActiveWorkers::sweep() {
    for (auto it = workers_.begin(); it != workers_.end();) {
        const auto token = tokens_.find(it->second.token_id);
        if (token != tokens_.end() && it->second.ms < token->second.forgotten_before)
            it = workers_.erase(it);
        else
            ++it;
    }
    sweep_at_ = std::max<size_t>(1024, 2 * workers_.size());
}

void ActiveWorkers::seen(int64_t worker_id, int64_t token_id, int64_t ms) {
    std::lock_guard lock(mutex_);
    if (workers_.size() >= sweep_at_) sweep();
    const auto [it, added] = workers_.try_emplace(worker_id, Seen{token_id, ms});
    if (!added) {
        if (it->second.ms >= ms && it->second.token_id == token_id) return;
        forget(it->second);
        it->second = Seen{token_id, ms};
    }
    Token& token = tokens_[token_id];
    if (ms < token.forgotten_before) return;
    ++token.seen_at[ms];
    ++token.live;
}

int64_t ActiveWorkers::count(int64_t token_id, int64_t since_ms) {
    std::lock_guard lock(mutex_);
    Token& token = tokens_[token_id];
    while (!token.seen_at.empty() && token.seen_at.begin()->first < since_ms) {
        token.live -= token.seen_at.begin()->second;
        token.seen_at.erase(token.seen_at.begin());
    }
    if (since_ms > token.forgotten_before) token.forgotten_before = since_ms;
    return token.live;
}

}  // namespace sparring::coordinator
