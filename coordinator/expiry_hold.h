// Leases are not expired while the coordinator sheds calls: a worker whose report or heartbeat
// was refused is alive, and expiring its lease would have other workers play its pairs again
// (work lost twice). The maintenance loop asks an ExpiryHold before each lease sweep.
#pragma once

#include <chrono>
#include <optional>

namespace sparring::coordinator {

class ExpiryHold {
  public:
    using Time = std::chrono::steady_clock::time_point;

    enum class Step {
        expire,  // sweep as usual
        hold,    // skip the sweep: the writer shed a call lately
        renew,   // the overload is over: give every lease a full life, then sweep
    };

    // quiet: how long after the last shed call the coordinator counts as overloaded (the
    // longest retry-after, twice over, so that the workers it refused are back); max_hold: the
    // longest the sweep waits while the overload lasts, after which it runs once (a lease
    // without any sign through a whole hold expires: its worker is gone).
    ExpiryHold(std::chrono::milliseconds quiet, std::chrono::milliseconds max_hold)
        : quiet_(quiet), max_hold_(max_hold) {}

    // Returns what the sweep at `now` does, given when the writer last shed a call.
    Step next(Time now, std::optional<Time> last_shed) {
        const bool overloaded = last_shed && now - *last_shed < quiet_;
        if (!overloaded) {
            if (!holding_) return Step::expire;
            holding_ = false;
            return Step::renew;
        }
        if (!holding_) {
            holding_ = true;
            held_since_ = now;
        }
        if (now - held_since_ < max_hold_) return Step::hold;
        held_since_ = now;  // held a whole lease life: sweep once, then hold again
        return Step::expire;
    }

    // Returns whether the sweep is being held.
    bool holding() const { return holding_; }

  private:
    std::chrono::milliseconds quiet_;
    std::chrono::milliseconds max_hold_;
    bool holding_ = false;
    Time held_since_{};  // while holding_
};

}  // namespace sparring::coordinator
