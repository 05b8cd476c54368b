#include "common/random.h"

namespace sparring {

namespace {

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;

// Returns the splitmix64 finalizer of a state.
std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t n) {
    return mix(seed + kGamma * (n + 1));
}

std::uint64_t SplitMix64::next() {
    state_ += kGamma;
    return mix(state_);
}

}  // namespace sparring
