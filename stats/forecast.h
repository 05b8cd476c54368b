// A forecast of an SPRT in progress: from its counts so far, the chance that it accepts H1 or
// H0 from here (or reaches its most games undecided), the game pairs it still needs (mean and
// a 90% range), and the error rates that stopping it now would really have. Derived in
// docs/statistics.md ("A forecast for every test").
#pragma once

#include <cstdint>

#include "stats/stats.h"

namespace sparring::stats {

struct SprtForecast {
    // From here: the probability of accepting H1, of accepting H0, and of reaching the most
    // pairs without a decision (the three add up to 1).
    double p_h1 = 0;
    double p_h0 = 0;
    double p_undecided = 0;
    // The game pairs still to be played: their mean, and the 5%, 50% and 95% quantiles (none
    // past the most pairs left).
    double pairs_mean = 0;
    double pairs_low = 0;
    double pairs_median = 0;
    double pairs_high = 0;
    // Stopping now, accepting the hypothesis the LLR leans to (H1 at an LLR of 0 or more):
    // the error rates of the SPRT whose bound on that side were the current LLR, the other
    // bound kept (alpha: accepting H1 when H0 holds; beta: accepting H0 when H1 holds).
    bool stop_accepts_h1 = false;
    double stop_alpha = 0;
    double stop_beta = 0;
};

// Returns the forecast of an SPRT of game pairs after `results`, with at most `pairs_left`
// more pairs to play. Treats the LLR as a Brownian motion whose drift and variance per pair
// come from the pair scores, the unknown mean score taken from its posterior under a flat prior
// (normal around the observed mean, with the observed variance over the pairs): the first
// passage through either bound, from the method-of-images series in closed form, averaged
// over that posterior. The test is checked every pairs_per_check pairs (a report's, on
// average), which carries it past its bounds a little. Without times, only the probabilities
// (and pairs_mean when the most pairs are too far to matter) are computed, in a small part of
// the time. Throws std::invalid_argument as sprt() does, or for no pairs.
SprtForecast forecast_sprt(const Pentanomial& results, const SprtParams& params, int64_t pairs_left,
                           double pairs_per_check = 1, bool with_times = true);

// The same for an LLR given in units of the test's bounds: used by the one above once the LLR,
// the bounds and the per-pair drift scale are known. `drift` is the posterior mean of the LLR's
// drift per pair over its standard deviation per pair, `drift_sd` that posterior's standard
// deviation, `distance_low` and `distance_high` the distances from the LLR to the bounds in
// standard deviations of one pair's LLR (both positive). Exposed for the tests.
SprtForecast forecast_motion(double distance_low, double distance_high, double drift,
                             double drift_sd, int64_t pairs_left, bool with_times = true);

// The error rates of stopping an SPRT with bounds lower < 0 < upper at `llr` (strictly between
// them) and accepting the hypothesis it leans to, in the forecast's stop_* fields.
void stop_error_rates(double llr, double lower, double upper, SprtForecast* forecast);

}  // namespace sparring::stats
