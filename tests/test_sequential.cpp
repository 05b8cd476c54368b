// The median-unbiased Elo of SPRT-stopped tests (stats/sequential.h): over many simulated
// tests of a known Elo, the estimate at the stop has that Elo as its median, where the plain
// (maximum-likelihood) estimate at the stop is pushed away from the bounds' middle.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "stats/sequential.h"

namespace sparring::stats {
namespace {

// Returns the median of values.
double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

struct Simulated {
    std::vector<double> plain;     // the maximum-likelihood Elo at each test's stop
    std::vector<double> unbiased;  // the median-unbiased one
};

// Plays `tests` SPRTs of at most max_pairs game pairs between players `true_elo` apart
// (independent games, 40% draws), checking the SPRT after every 4th pair, and returns both
// estimates at each stop.
Simulated simulate(double true_elo, const SprtParams& params, int tests, int max_pairs) {
    const double draw = 0.4;
    const double win = score_of_elo(true_elo) - draw / 2;
    std::mt19937_64 random(20261204);
    std::uniform_real_distribution<double> uniform(0, 1);
    const auto game = [&] {
        const double r = uniform(random);
        return r < win ? 2 : r < win + draw ? 1 : 0;
    };
    Simulated out;
    for (int test = 0; test < tests; ++test) {
        Pentanomial counts;
        SprtEnd end = SprtEnd::Truncated;
        for (int pair = 1; pair <= max_pairs; ++pair) {
            ++counts.counts[size_t(game() + game())];
            if (pair % 4 != 0) continue;
            const SprtResult r = sprt(counts, params);
            if (r.state == SprtResult::State::AcceptH1) end = SprtEnd::AcceptH1;
            if (r.state == SprtResult::State::AcceptH0) end = SprtEnd::AcceptH0;
            if (end != SprtEnd::Truncated) break;
        }
        out.plain.push_back(estimate(counts).elo);
        out.unbiased.push_back(median_unbiased_elo(counts, params, end).elo);
    }
    return out;
}

TEST(MedianUnbiasedElo, ItsMedianOverStoppedTestsIsTheTrueEloWhereThePlainOneIsBiased) {
    SprtParams params;
    params.elo0 = 0;
    params.elo1 = 20;
    params.model = Model::Logistic;
    // Near the bounds, most tests stop early on a streak that carried them past one bound.
    for (const double true_elo : {5.0, 15.0}) {
        const Simulated s = simulate(true_elo, params, 300, 4000);
        const double plain = median(s.plain), unbiased = median(s.unbiased);
        EXPECT_NEAR(unbiased, true_elo, 1.5) << "plain median " << plain;
        EXPECT_GT(std::abs(plain - true_elo), std::abs(unbiased - true_elo) + 1.5)
            << "plain median " << plain << ", unbiased median " << unbiased;
    }
}

TEST(MedianUnbiasedElo, TheNormalizedModelsTestsToo) {
    SprtParams params;
    params.elo0 = 0;
    params.elo1 = 20;
    params.model = Model::Normalized;
    const Simulated s = simulate(10, params, 300, 4000);
    EXPECT_NEAR(median(s.unbiased), 10, 1.5) << "plain median " << median(s.plain);
}

TEST(MedianUnbiasedElo, ATestEndingAtItsMaximumRightBetweenTheHypothesesIsAtTheirMiddle) {
    SprtParams params;
    params.elo0 = -10;
    params.elo1 = 10;
    params.model = Model::Logistic;
    Pentanomial even;
    even.counts = {100, 400, 1000, 400, 100};  // a mean score of exactly 1/2
    const UnbiasedElo e = median_unbiased_elo(even, params, SprtEnd::Truncated);
    EXPECT_NEAR(e.elo, 0, 0.05);
    EXPECT_NEAR(e.elo_low, -e.elo_high, 0.05);
    EXPECT_LT(e.elo_low, -2);
    // H1 accepted at the same counts says more than the maximum reached, H0 less, mirrored.
    const UnbiasedElo h1 = median_unbiased_elo(even, params, SprtEnd::AcceptH1);
    const UnbiasedElo h0 = median_unbiased_elo(even, params, SprtEnd::AcceptH0);
    EXPECT_GT(h1.elo, e.elo);
    EXPECT_LT(h0.elo, e.elo);
    EXPECT_NEAR(h1.elo, -h0.elo, 0.01);
}

TEST(MedianUnbiasedElo, NoPairsOrBadParametersAreRefused) {
    SprtParams params;
    EXPECT_THROW(median_unbiased_elo(Pentanomial(), params, SprtEnd::AcceptH1),
                 std::invalid_argument);
    params.elo1 = params.elo0;
    Pentanomial some;
    some.counts = {1, 2, 3, 2, 1};
    EXPECT_THROW(median_unbiased_elo(some, params, SprtEnd::AcceptH1), std::invalid_argument);
}

}  // namespace
}  // namespace sparring::stats
