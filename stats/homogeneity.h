// Whether one worker's game-pair results fit the rest of its run: the chi-squared test of
// homogeneity on the pentanomial counts (as fishtest's worker residuals), so that a broken or
// dishonest worker stands out.
#pragma once

#include <cstdint>

#include "stats/stats.h"

namespace sparring::stats {

// The test of one worker's pairs against the rest of the run's.
struct Homogeneity {
    double chi2 = 0;      // Pearson's statistic of the worker-versus-rest table
    int df = 0;           // its degrees of freedom; 0: too few pairs to test
    double p_value = 1;   // chance of a statistic this large from a worker like the rest
    double residual = 0;  // largest adjusted standardized residual of the worker's row, signed
};

// Returns the upper tail P(X >= x) of the chi-squared distribution with df degrees of freedom
// (1 for x <= 0); throws std::invalid_argument for df < 1.
double chi2_upper_tail(double x, int df);

// Tests a worker's pair counts against the rest of the run's. Adjacent result classes (in score
// order) are merged until both the worker and the rest expect at least 5 pairs in each, so that
// sparse classes never make a few pairs look implausible; with fewer than two classes left, or no
// pairs on either side, df is 0 and p_value 1. Throws std::invalid_argument for a negative count.
Homogeneity homogeneity(const Pentanomial& worker, const Pentanomial& rest);

// Returns the upper tail P(X >= k) of the binomial distribution of n trials with success
// probability p; throws std::invalid_argument for n < 0 or p outside [0, 1].
double binomial_upper_tail(int64_t k, int64_t n, double p);

// Returns the chance that a worker whose games are lost on time at the rate of the rest of
// its run loses `losses` or more of its `games`: the binomial upper tail at the rest's rate,
// smoothed as (rest_losses + 1) / (rest_games + 2) so that a rest without any time loss does
// not make a single one impossible.
double excess_loss_p(int64_t losses, int64_t games, int64_t rest_losses, int64_t rest_games);

}  // namespace sparring::stats
