// splitmix64: the one seeded generator of the service, so that a seed gives the same numbers
// on every machine and standard library (opening orders, SPSA perturbations, game seeds).
#pragma once

#include <cstdint>

namespace sparring {

// Returns output n (counted from 0) of the splitmix64 sequence started from seed: a
// bijective mix that also spreads nearby seeds far apart.
std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t n = 0);

// The splitmix64 sequence of a seed, one output at a time.
class SplitMix64 {
  public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    // Returns the next output.
    std::uint64_t next();

  private:
    std::uint64_t state_;
};

}  // namespace sparring
