#include "stats/score_difference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace sparring::stats {

namespace {

// The mean pair score of a group and the variance of that mean.
struct MeanScore {
    double mean = 0.5;
    double variance = 0;
};

// Returns a group's mean pair score and its variance, zero counts replaced by 1e-3.
MeanScore mean_score(const Pentanomial& group) {
    double n = 0;
    double sum = 0;
    double squares = 0;
    for (size_t i = 0; i < group.counts.size(); ++i) {
        if (group.counts[i] < 0) throw std::invalid_argument("negative pair count");
        const double count = group.counts[i] == 0 ? 1e-3 : double(group.counts[i]);
        const double score = double(i) / 4;
        n += count;
        sum += count * score;
        squares += count * score * score;
    }
    MeanScore m;
    m.mean = sum / n;
    m.variance = std::max(0.0, squares / n - m.mean * m.mean) / n;
    return m;
}

int64_t pairs_of(const Pentanomial& group) {
    int64_t pairs = 0;
    for (int64_t count : group.counts) pairs += count;
    return pairs;
}

}  // namespace

ScoreDifference score_difference(const Pentanomial& a, const Pentanomial& b) {
    const MeanScore ma = mean_score(a);
    const MeanScore mb = mean_score(b);
    ScoreDifference d;
    if (pairs_of(a) < kMinDifferencePairs || pairs_of(b) < kMinDifferencePairs) return d;
    const double se = std::sqrt(ma.variance + mb.variance);
    d.z = (ma.mean - mb.mean) / se;
    d.p_value = std::erfc(std::abs(d.z) / std::sqrt(2.0));
    return d;
}

}  // namespace sparring::stats
