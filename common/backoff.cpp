#include "common/backoff.h"

#include <algorithm>

namespace sparring {

using std::chrono::milliseconds;

milliseconds exponential_delay(milliseconds first, milliseconds cap, int attempt) {
    const milliseconds most = std::max(cap, first);
    milliseconds delay = first;
    for (int i = 1; i < attempt && delay < most; ++i) delay *= 2;
    return std::min(delay, most);
}

Backoff::Backoff(milliseconds first, milliseconds cap, uint64_t seed)
    : first_(first), cap_(cap), random_(seed) {}

milliseconds Backoff::next() {
    const milliseconds delay = exponential_delay(first_, cap_, ++failures_);
    return milliseconds(
        std::uniform_int_distribution<int64_t>(delay.count() / 2, delay.count())(random_));
}

void Backoff::reset() {
    failures_ = 0;
}

}  // namespace sparring
