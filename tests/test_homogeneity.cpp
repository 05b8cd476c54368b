#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/homogeneity.h"

namespace sparring::stats {
namespace {

// Returns counts in the order LL, LD, DD+WL, WD, WW.
Pentanomial penta(int64_t ll, int64_t ld, int64_t dd, int64_t wd, int64_t ww) {
    return Pentanomial{{ll, ld, dd, wd, ww}};
}

// Closed forms of the chi-squared upper tail for small df check the incomplete gamma code.
TEST(Chi2UpperTail, MatchesClosedFormsAndTables) {
    const double pi = std::acos(-1.0);
    for (double x : {0.01, 0.5, 1.0, 3.0, 7.5, 20.0, 60.0, 200.0}) {
        const double df1 = std::erfc(std::sqrt(x / 2));
        const double df2 = std::exp(-x / 2);
        const double df3 = std::erfc(std::sqrt(x / 2)) + std::sqrt(2 * x / pi) * std::exp(-x / 2);
        const double df4 = std::exp(-x / 2) * (1 + x / 2);
        EXPECT_NEAR(chi2_upper_tail(x, 1) / df1, 1, 1e-9) << x;
        EXPECT_NEAR(chi2_upper_tail(x, 2) / df2, 1, 1e-9) << x;
        EXPECT_NEAR(chi2_upper_tail(x, 3) / df3, 1, 1e-9) << x;
        EXPECT_NEAR(chi2_upper_tail(x, 4) / df4, 1, 1e-9) << x;
    }
    // Critical values at 5% and 0.1% from the standard tables.
    EXPECT_NEAR(chi2_upper_tail(3.841458820694124, 1), 0.05, 1e-12);
    EXPECT_NEAR(chi2_upper_tail(9.487729036781154, 4), 0.05, 1e-12);
    EXPECT_NEAR(chi2_upper_tail(18.46682695290317, 4), 0.001, 1e-13);
    EXPECT_EQ(chi2_upper_tail(0, 3), 1);
    EXPECT_THROW(chi2_upper_tail(1, 0), std::invalid_argument);
}

// A table worked by hand: worker [20 DD, 20 WW] against rest [60 DD, 20 WW] gives chi2 7.5.
TEST(Homogeneity, TwoClassesWorkedByHand) {
    const Homogeneity h = homogeneity(penta(0, 0, 20, 0, 20), penta(0, 0, 60, 0, 20));
    EXPECT_NEAR(h.chi2, 7.5, 1e-12);
    EXPECT_EQ(h.df, 1);
    EXPECT_NEAR(h.p_value, std::erfc(std::sqrt(3.75)), 1e-12);
    // In a 2x2 table every adjusted residual has the size of the statistic's square root; the
    // worker has more won pairs than the rest would give it, so its residual is positive.
    EXPECT_NEAR(h.residual, std::sqrt(7.5), 1e-12);
}

// Three classes: worker [10 LD, 10 DD, 30 WD] against rest [40 LD, 40 DD, 20 WD].
TEST(Homogeneity, ThreeClassesWorkedByHand) {
    const Homogeneity h = homogeneity(penta(0, 10, 10, 30, 0), penta(0, 40, 40, 20, 0));
    // Column totals 50, 50, 50 of 150; rows 50 and 100: every worker cell expects 16.67,
    // every rest cell 33.33.
    const double ew = 50.0 / 3;
    const double er = 100.0 / 3;
    const double chi2 = 2 * (10 - ew) * (10 - ew) / ew + (30 - ew) * (30 - ew) / ew +
                        2 * (40 - er) * (40 - er) / er + (20 - er) * (20 - er) / er;
    EXPECT_NEAR(h.chi2, chi2, 1e-9);
    EXPECT_NEAR(h.chi2, 24, 1e-9);
    EXPECT_EQ(h.df, 2);
    EXPECT_NEAR(h.p_value, std::exp(-12.0), 1e-15);
    // The WD class stands out: (30 - 16.67) / sqrt(16.67 * 2/3 * 2/3).
    EXPECT_NEAR(h.residual, (30 - ew) / std::sqrt(ew * 4 / 9), 1e-9);
}

// A few pairs in rare classes never look implausible: sparse classes are merged.
TEST(Homogeneity, SparseClassesAreMerged) {
    const Homogeneity one = homogeneity(penta(0, 1, 0, 0, 0), penta(0, 0, 1000, 0, 0));
    EXPECT_EQ(one.df, 0);
    EXPECT_EQ(one.p_value, 1);
    const Homogeneity none = homogeneity(penta(0, 0, 0, 0, 0), penta(5, 5, 5, 5, 5));
    EXPECT_EQ(none.df, 0);
    const Homogeneity alone = homogeneity(penta(5, 5, 5, 5, 5), penta(0, 0, 0, 0, 0));
    EXPECT_EQ(alone.df, 0);
    EXPECT_THROW(homogeneity(penta(-1, 0, 0, 0, 0), penta(1, 1, 1, 1, 1)), std::invalid_argument);
}

// A worker reporting only won pairs is implausible after a few dozen pairs.
TEST(Homogeneity, OnlyWinsStandsOut) {
    const Pentanomial rest = penta(100, 400, 1000, 400, 100);
    const Homogeneity h = homogeneity(penta(0, 0, 0, 0, 30), rest);
    EXPECT_LT(h.p_value, 1e-12);
    EXPECT_GT(h.residual, 5);
    EXPECT_GE(h.df, 1);
}

// Honest workers drawing from one distribution fall below p = 0.05 about 5% of the time.
TEST(Homogeneity, HonestWorkersAreCalibrated) {
    std::mt19937_64 random(17);
    std::discrete_distribution<int> pair({5, 20, 50, 20, 5});
    const int workers = 400;
    int below_5 = 0;
    int below_001 = 0;
    for (int w = 0; w < workers; ++w) {
        Pentanomial mine;
        Pentanomial rest;
        for (int i = 0; i < 200; ++i) ++mine.counts[size_t(pair(random))];
        for (int i = 0; i < 2000; ++i) ++rest.counts[size_t(pair(random))];
        const Homogeneity h = homogeneity(mine, rest);
        EXPECT_EQ(h.df, 4);
        below_5 += h.p_value < 0.05;
        below_001 += h.p_value < 0.001;
    }
    EXPECT_GT(below_5, workers / 100);
    EXPECT_LT(below_5, workers / 8);
    EXPECT_LE(below_001, 3);
}

// The binomial tail against a sum of the probability mass function term by term.
TEST(Binomial, UpperTailMatchesTheSumOfTheMassFunction) {
    EXPECT_NEAR(binomial_upper_tail(8, 10, 0.5), 56.0 / 1024, 1e-15);
    EXPECT_EQ(binomial_upper_tail(0, 10, 0.3), 1);
    EXPECT_EQ(binomial_upper_tail(-3, 10, 0.3), 1);
    EXPECT_EQ(binomial_upper_tail(11, 10, 0.3), 0);
    EXPECT_EQ(binomial_upper_tail(1, 10, 0), 0);
    EXPECT_EQ(binomial_upper_tail(10, 10, 1), 1);
    for (const int n : {1, 7, 60, 400}) {
        for (const double p : {0.005, 0.1, 0.5, 0.8}) {
            // pmf(i) by the recurrence from pmf(0) = (1 - p)^n (above 1e-300 for each case).
            std::vector<double> pmf(size_t(n) + 1);
            pmf[0] = std::pow(1 - p, n);
            for (int i = 1; i <= n; ++i)
                pmf[size_t(i)] = pmf[size_t(i) - 1] * double(n - i + 1) / i * p / (1 - p);
            double tail = 0;
            for (int k = n; k >= 1; --k) {
                tail += pmf[size_t(k)];
                // Either side of the mean, each branch of the function.
                EXPECT_NEAR(binomial_upper_tail(k, n, p), tail, 1e-12 + 1e-9 * tail)
                    << "k " << k << " n " << n << " p " << p;
            }
        }
    }
    EXPECT_THROW(binomial_upper_tail(1, -1, 0.5), std::invalid_argument);
    EXPECT_THROW(binomial_upper_tail(1, 10, 1.5), std::invalid_argument);
}

// A worker with the rest's rate of time losses looks plausible; one with many times that rate
// does not; a rest without any loss does not make one loss impossible.
TEST(Binomial, ExcessLossesStandOutAndOneLossDoesNot) {
    EXPECT_EQ(excess_loss_p(0, 100, 5, 1000), 1);
    EXPECT_GT(excess_loss_p(1, 100, 10, 1000), 0.5);
    EXPECT_GT(excess_loss_p(1, 100, 0, 10000), 0.009);
    EXPECT_LT(excess_loss_p(24, 60, 0, 200), 1e-20);
    EXPECT_LT(excess_loss_p(10, 200, 10, 2000), 0.01);
}

}  // namespace
}  // namespace sparring::stats
