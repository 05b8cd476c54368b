// Waiting between attempts: delays that double from a first one up to a cap. The worker's
// calls to the coordinator wait a random part of each delay (Backoff), so that many workers do
// not retry in lockstep; the coordinator's notifier waits the delay itself before a
// notification's next attempt (exponential_delay), counted from the attempts it has recorded.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace sparring {

// Returns the delay after attempt number `attempt` (1 for the first) failed: first, doubled for
// each attempt after the first, and never more than the cap (nor less than first).
std::chrono::milliseconds exponential_delay(std::chrono::milliseconds first,
                                            std::chrono::milliseconds cap, int attempt);

// Delays between attempts: exponential_delay's, each drawn at random in [d/2, d].
class Backoff {
  public:
    Backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, uint64_t seed);
    // Returns the wait before the next attempt and doubles the delay, up to the cap.
    std::chrono::milliseconds next();
    // Starts again from the first delay (after a success).
    void reset();

  private:
    std::chrono::milliseconds first_;
    std::chrono::milliseconds cap_;
    int failures_ = 0;
    std::mt19937_64 random_;
};

}  // namespace sparring
