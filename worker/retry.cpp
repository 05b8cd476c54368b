#include "worker/retry.h"

#include <algorithm>

namespace sparring::worker {

using std::chrono::milliseconds;

milliseconds wait_after(const CallOutcome& failure, Backoff& backoff) {
    // A hint shorter than this is taken as this: a coordinator cannot make a worker spin.
    constexpr milliseconds kShortestHint{10};
    if (failure.retry_after.count() > 0) return std::max(failure.retry_after, kShortestHint);
    return backoff.next();
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
