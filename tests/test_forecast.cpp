// The forecast of SPRTs in progress (stats/forecast.h): its closed forms against the known
// laws of a Brownian motion between two bounds, and its calibration over simulated SPRTs
// (tests/forecast_calibration.h; the bigger run is bench/forecast_calibration.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "forecast_calibration.h"
#include "stats/forecast.h"

namespace sparring::stats {
namespace {

TEST(Forecast, WithoutDriftTheBoundsAreReachedInProportionToTheDistances) {
    // No drift, known exactly: P(upper) = distance_low / width, E[T] = distance_low *
    // distance_high, whatever the scale.
    const SprtForecast f = forecast_motion(30, 10, 0, 0, 1'000'000'000);
    EXPECT_NEAR(f.p_h1, 0.75, 1e-9);
    EXPECT_NEAR(f.p_h0, 0.25, 1e-9);
    EXPECT_NEAR(f.pairs_mean, 300, 1e-6);
    EXPECT_EQ(f.p_undecided, 0);
    EXPECT_LT(f.pairs_low, f.pairs_median);
    EXPECT_LT(f.pairs_median, f.pairs_mean);  // the exit time is skewed to the right
    EXPECT_GT(f.pairs_high, 2 * f.pairs_mean);
}

TEST(Forecast, TheImageSeriesAgreesWithTheClosedFormsWhenTheMaximumIsFarAway) {
    // A horizon just inside the time grid takes the series' path; one far past it the closed
    // forms'. Drifts of both signs and a strong one whose exponentials would overflow.
    for (const double drift : {-0.5, -0.02, 0.01, 0.05, 2.0}) {
        const SprtForecast closed = forecast_motion(20, 25, drift, 0, 1'000'000'000);
        const SprtForecast series =
            forecast_motion(20, 25, drift, 0, int64_t(closed.pairs_high * 8));
        EXPECT_NEAR(series.p_h1, closed.p_h1, 1e-3) << drift;
        EXPECT_NEAR(series.p_h0, closed.p_h0, 1e-3) << drift;
        EXPECT_NEAR(series.pairs_mean, closed.pairs_mean, 0.02 * closed.pairs_mean + 1) << drift;
        EXPECT_NEAR(series.pairs_median, closed.pairs_median, 0.02 * closed.pairs_median + 1);
    }
}

TEST(Forecast, AMaximumCloseByLeavesTheTestUndecided) {
    const SprtForecast f = forecast_motion(30, 30, 0, 0, 100);
    EXPECT_GT(f.p_undecided, 0.99);
    EXPECT_NEAR(f.p_h1, f.p_h0, 1e-9);
    EXPECT_NEAR(f.pairs_mean, 100, 1);
    EXPECT_EQ(f.pairs_high, 100);  // no quantile past the maximum
    const SprtForecast none = forecast_motion(30, 30, 0, 0, 0);
    EXPECT_EQ(none.p_undecided, 1);
}

TEST(Forecast, StoppingAtABoundHasTheTestsErrorRatesAndNearZeroFarMore) {
    SprtResult bounds = sprt(Pentanomial(), SprtParams{0, 5, 0.05, 0.1, Model::Logistic});
    SprtForecast f;
    stop_error_rates(bounds.upper - 1e-12, bounds.lower, bounds.upper, &f);
    EXPECT_TRUE(f.stop_accepts_h1);
    EXPECT_NEAR(f.stop_alpha, 0.05, 1e-6);
    EXPECT_NEAR(f.stop_beta, 0.1, 1e-6);
    stop_error_rates(bounds.lower + 1e-12, bounds.lower, bounds.upper, &f);
    EXPECT_FALSE(f.stop_accepts_h1);
    EXPECT_NEAR(f.stop_alpha, 0.05, 1e-6);
    EXPECT_NEAR(f.stop_beta, 0.1, 1e-6);
    // Halfway to H1, accepting it would be wrong far more often than the test allows.
    stop_error_rates(bounds.upper / 2, bounds.lower, bounds.upper, &f);
    EXPECT_TRUE(f.stop_accepts_h1);
    EXPECT_GT(f.stop_alpha, 0.15);
    EXPECT_LT(f.stop_beta, 0.1);
}

TEST(Forecast, OfCountedPairs) {
    const SprtParams params{0, 10, 0.05, 0.05, Model::Logistic};
    Pentanomial even;
    even.counts = {50, 200, 500, 200, 50};
    const SprtForecast f = forecast_sprt(even, params, 10'000);
    EXPECT_NEAR(f.p_h1 + f.p_h0 + f.p_undecided, 1, 1e-9);
    EXPECT_LT(f.p_h1, 0.5);  // at the H0 side of the middle already
    EXPECT_GT(f.pairs_mean, 100);
    EXPECT_FALSE(f.stop_accepts_h1);
    Pentanomial strong;
    strong.counts = {10, 100, 500, 300, 90};
    const SprtForecast decided = forecast_sprt(strong, params, 10'000);
    EXPECT_EQ(decided.p_h1, 1);
    EXPECT_EQ(decided.pairs_mean, 0);
    EXPECT_THROW(forecast_sprt(Pentanomial(), params, 10), std::invalid_argument);
    Pentanomial negative;
    negative.counts = {-1, 0, 0, 0, 0};
    EXPECT_THROW(forecast_sprt(negative, params, 10), std::invalid_argument);
}

// 3000 simulated SPRTs of logistic [0, 10] with true Elos in [-10, 20], each forecast at three
// points drawn in 40-2000 pairs while it runs (the first 800 forecasts with their times): in
// each decile of the predicted P(H1), the share that accepted H1 is within
// 5 points of the prediction, and the pairs left are at the predicted median in the median
// (within 10%). Fixed seed; a few seconds.
TEST(ForecastCalibration, PredictedProbabilitiesAndRemainingPairsMatchSimulatedTests) {
    calibration::Setup setup;
    setup.params = {0, 10, 0.05, 0.05, Model::Logistic};
    setup.elo_low = -10;
    setup.elo_high = 20;
    setup.max_pairs = 4000;
    setup.forecast_from = 40;
    setup.forecast_to = 2000;
    setup.tests = 3000;
    setup.points = 3;
    setup.timed_records = 800;
    setup.seed = 20261207;
    const calibration::Summary s = calibration::summarize(calibration::simulate(setup));
    ASSERT_GT(s.tests, 3000);
    ASSERT_EQ(s.timed, 800);
    for (size_t i = 0; i < s.deciles.size(); ++i) {
        const calibration::Decile& d = s.deciles[i];
        ASSERT_GE(d.tests, 50) << "decile " << i;
        EXPECT_NEAR(d.observed, d.predicted, 0.05) << "decile " << i << ": " << d.tests;
    }
    EXPECT_NEAR(s.median_ratio, 1, 0.1);
    EXPECT_NEAR(s.within_range, 0.9, 0.05);
    EXPECT_NEAR(s.mean_left / s.mean_predicted, 1, 0.1);
}

}  // namespace
}  // namespace sparring::stats
