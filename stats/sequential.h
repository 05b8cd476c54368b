// The Elo of a run that an SPRT stopped, estimated without the bias of stopping: a test that
// stops as soon as its log-likelihood ratio leaves [A, B] stops early on a lucky streak, so the
// plain estimate at the stop (the maximum-likelihood one) is too far from the bounds' middle
// on average. The median-unbiased estimate (fishtest reports one too) is the Elo for which
// the test's outcome as observed is the median outcome: half of the tests at that Elo would
// have ended "higher" (H1 sooner, or a higher score at the maximum), half "lower".
#pragma once

#include <cstdint>

#include "stats/stats.h"

namespace sparring::stats {

// How an SPRT-run ended.
enum class SprtEnd { AcceptH0, AcceptH1, Truncated };

// The median-unbiased Elo of a stopped test, in logistic Elo (the mean score's), with a 95%
// interval (the Elo values for which the observed outcome is the 97.5% and 2.5% quantile).
struct UnbiasedElo {
    double elo = 0;
    double elo_low = 0;
    double elo_high = 0;
};

// Returns the median-unbiased Elo of a test of game pairs that ended as `end` after the
// counted pairs (for Truncated: it reached its most games there, without a decision). Uses the
// Brownian-motion approximation of the log-likelihood ratio: the sum of the pair scores minus the
// hypotheses' middle score is a Brownian motion with the per-pair variance of the data, absorbed at
// the bounds A and B mapped to that sum; the overshoot of the discrete test past its bound is
// ignored. Throws std::invalid_argument as sprt() does, or for no pairs.
UnbiasedElo median_unbiased_elo(const Pentanomial& results, const SprtParams& params, SprtEnd end);

// The pair scores of a test as its Brownian approximation sees them: the pairs, their mean
// score and standard deviation (zero counts replaced by 1e-3, as the estimates do), and the
// mean pair scores of H0 and H1 under the test's model. The LLR is then about
// n (theta1 - theta0) / sigma^2 (mean - (theta0 + theta1) / 2).
struct PairScores {
    double pairs = 0;
    double mean = 0.5;
    double sigma = 0;
    double theta0 = 0.5;
    double theta1 = 0.5;
};

// Returns the pair scores of counted pairs under the test's hypotheses.
PairScores pair_scores(const Pentanomial& results, const SprtParams& params);

}  // namespace sparring::stats
