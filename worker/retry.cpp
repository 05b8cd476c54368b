#include "worker/retry.h"

#include <algorithm>

namespace sparring::worker {

using std::chrono::milliseconds;

Backoff::Backoff(milliseconds first, milliseconds cap, uint64_t seed)
    : first_(first), cap_(std::max(cap, first)), delay_(first), random_(seed) {}

milliseconds Backoff::next() {
    const milliseconds wait(
        std::uniform_int_distribution<int64_t>(delay_.count() / 2, delay_.count())(random_));
    delay_ = std::min(delay_ * 2, cap_);
    return wait;
}

void Backoff::reset() {
    delay_ = first_;
}

milliseconds wait_after(const CallOutcome& failure, Backoff& backoff) {
    return std::max(backoff.next(), failure.retry_after);
}

CallOutcome retry_transient(const std::function<CallOutcome()>& call, Backoff& backoff,
                            const Pause& pause) {
    for (;;) {
        CallOutcome outcome = call();
        if (outcome.kind != CallOutcome::Kind::Transient) return outcome;
        if (!pause(outcome, wait_after(outcome, backoff))) return outcome;
    }
}

}  // namespace sparring::worker
