// Retrying calls to the coordinator: which failures are worth another attempt, and capped
// exponential backoff with jitter (common/backoff.h) between attempts, independent of the
// transport.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "common/backoff.h"

namespace sparring::worker {

// How one call to the coordinator ended.
struct CallOutcome {
    enum class Kind {
        Ok,
        Transient,  // the coordinator was unreachable or busy: the same call may succeed later
        Permanent,  // refused: repeating the call cannot help
        LeaseOver,  // refused because the lease is no longer held: discard its results
    };
    Kind kind = Kind::Ok;
    std::string error;  // one line, e.g. "unavailable: connection refused"; empty when ok
    // How long a busy coordinator asked to be left alone (its retry-after-ms); 0: no hint.
    std::chrono::milliseconds retry_after{0};

    bool ok() const { return kind == Kind::Ok; }
};

// Returns the wait before retrying a transient failure: the wait a busy coordinator asked for
// when it gave one (it knows its queue, and spreads the waits it gives so that the refused do
// not all come back at once; the backoff is not advanced, so a hint neither shortens nor
// stretches a later unhinted wait), otherwise the backoff's next delay.
std::chrono::milliseconds wait_after(const CallOutcome& failure, Backoff& backoff);

// Waits a delay after a transient failure; returns false to give up instead (stopping, or the
// delay would end past a deadline).
using Pause = std::function<bool(const CallOutcome& failure, std::chrono::milliseconds delay)>;

// Calls until the call succeeds or fails other than transiently, pausing for wait_after()
// after each transient failure; returns the last outcome.
CallOutcome retry_transient(const std::function<CallOutcome()>& call, Backoff& backoff,
                            const Pause& pause);

}  // namespace sparring::worker
