#include "worker/retry.h"

#include <algorithm>

namespace sparring::worker {

using std::chrono::milliseconds;

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
