// Whether two groups of game pairs score differently: a class of workers (the same CPU) against
// the rest of a run, as the coordinator's class findings test it (docs/statistics.md, "CPU
// classes").
#pragma once

#include "stats/stats.h"

namespace sparring::stats {

// The fewest pairs on each side that the test speaks of; with fewer its p is 1.
inline constexpr int64_t kMinDifferencePairs = 30;

// The difference of two groups' mean pair scores.
struct ScoreDifference {
    double z = 0;        // (mean of a - mean of b) / its standard error
    double p_value = 1;  // two-sided: the chance of a |z| this large from groups alike
};

// Tests whether the pairs of a score differently from those of b: the difference of their mean
// pair scores over its standard error (each group's variance over its pairs, zero counts
// replaced by 1e-3 as the Elo estimate does), two-sided against the normal law. Fewer than
// kMinDifferencePairs pairs on either side: z 0, p 1. Throws std::invalid_argument for a
// negative count.
ScoreDifference score_difference(const Pentanomial& a, const Pentanomial& b);

}  // namespace sparring::stats
