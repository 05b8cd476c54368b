// The forecast of SPRTs in progress (stats/forecast.h) against simulated SPRTs played to their
// end: each test draws a true Elo around the bounds, plays game pairs drawn from a pentanomial
// law of that Elo, checks the SPRT after every report of 4 pairs as the coordinator does, and
// at a point drawn in advance, if it is still running, records the forecast; then it runs to
// its end and records what happened. Used by tests/test_forecast.cpp (small, in CI) and
// bench/forecast_calibration.cpp (the figures of BENCHMARKS.md).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "stats/forecast.h"

namespace sparring::stats::calibration {

struct Setup {
    SprtParams params;
    double elo_low = 0;  // true Elos drawn uniformly in [elo_low, elo_high] (logistic)
    double elo_high = 0;
    int64_t max_pairs = 0;      // the test's most pairs
    int64_t forecast_from = 0;  // the forecast is made after a number of pairs drawn in
    int64_t forecast_to = 0;    // [forecast_from, forecast_to] (a multiple of 4)
    int tests = 0;
    int points = 1;         // forecasts per test, each at a point of its own
    int timed_records = 0;  // the records whose forecast has its times too (the first ones)
    uint64_t seed = 1;
};

struct Record {
    SprtForecast forecast;
    bool h1 = false;  // how the test ended
    bool h0 = false;
    double pairs_left = 0;  // pairs played after the forecast
    bool timed = false;     // the forecast has its times
};

// Returns the pentanomial law of a logistic Elo: the base law (LL .05, LD .2, DD+WL .5, WD
// .2, WW .05) tilted exponentially, p_i ~ base_i exp(lambda i), to the Elo's mean score.
inline std::array<double, 5> pentanomial_law(double elo) {
    const std::array<double, 5> base{0.05, 0.2, 0.5, 0.2, 0.05};
    const double target = score_of_elo(elo);
    double low = -20, high = 20;
    std::array<double, 5> p{};
    for (int iteration = 0; iteration < 100; ++iteration) {
        const double lambda = (low + high) / 2;
        double total = 0, mean = 0;
        for (size_t i = 0; i < 5; ++i) {
            p[i] = base[i] * std::exp(lambda * double(i));
            total += p[i];
        }
        for (size_t i = 0; i < 5; ++i) {
            p[i] /= total;
            mean += p[i] * 0.25 * double(i);
        }
        (mean < target ? low : high) = lambda;
    }
    return p;
}

// Plays the setup's tests and returns a record of each that was still running at its
// forecast point.
inline std::vector<Record> simulate(const Setup& setup) {
    std::mt19937_64 random(setup.seed);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<Record> records;
    for (int test = 0; test < setup.tests; ++test) {
        const double elo = setup.elo_low + (setup.elo_high - setup.elo_low) * uniform(random);
        const std::array<double, 5> law = pentanomial_law(elo);
        std::discrete_distribution<int> pair(law.begin(), law.end());
        std::vector<int64_t> points;
        for (int i = 0; i < setup.points; ++i)
            points.push_back(
                4 * ((setup.forecast_from +
                      int64_t(uniform(random) * double(setup.forecast_to - setup.forecast_from))) /
                     4));
        Pentanomial counts;
        std::vector<Record> made;
        std::vector<int64_t> made_at;
        bool h1 = false, h0 = false;
        int64_t end = setup.max_pairs;
        for (int64_t played = 1; played <= setup.max_pairs; ++played) {
            ++counts.counts[size_t(pair(random))];
            if (played % 4 != 0 && played != setup.max_pairs) continue;
            const SprtResult r = sprt(counts, setup.params);
            if (r.state != SprtResult::State::Continue) {
                h1 = r.state == SprtResult::State::AcceptH1;
                h0 = !h1;
                end = played;
                break;
            }
            for (const int64_t at : points) {
                if (played != at) continue;
                Record& record = made.emplace_back();
                record.timed = int(records.size() + made.size()) <= setup.timed_records;
                record.forecast =
                    forecast_sprt(counts, setup.params, setup.max_pairs - played, 4, record.timed);
                made_at.push_back(at);
            }
        }
        for (size_t i = 0; i < made.size(); ++i) {
            made[i].h1 = h1;
            made[i].h0 = h0;
            made[i].pairs_left = double(end - made_at[i]);
            records.push_back(made[i]);
        }
    }
    return records;
}

// The calibration of the forecasts: per decile of the predicted P(H1), the mean prediction
// and the share that accepted H1; and the pairs left against their predicted median and
// 90% range.
struct Decile {
    int tests = 0;
    double predicted = 0;  // mean P(H1) forecast
    double observed = 0;   // share that accepted H1
};

struct Summary {
    std::array<Decile, 10> deciles{};
    int tests = 0;
    int timed = 0;              // the forecasts with times, over which the figures below are taken
    double max_decile_gap = 0;  // |observed - predicted| over deciles of 30 tests or more
    // Over the timed forecasts: the median of the pairs left over the predicted median (1 when the
    // predicted medians are right: half of the tests end before theirs).
    double median_ratio = 0;
    double below_median = 0;  // share of tests that ended within the predicted median
    double within_range = 0;  // share that ended within the predicted 90% range
    double mean_left = 0;     // the pairs left, mean, and the mean of the predicted means
    double mean_predicted = 0;
};

inline double median_of(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

inline Summary summarize(const std::vector<Record>& records) {
    Summary s;
    s.tests = int(records.size());
    std::vector<double> ratios;
    int timed = 0;
    for (const Record& r : records) {
        Decile& d = s.deciles[std::min<size_t>(9, size_t(r.forecast.p_h1 * 10))];
        ++d.tests;
        d.predicted += r.forecast.p_h1;
        d.observed += r.h1 ? 1 : 0;
        if (!r.timed) continue;
        ++timed;
        ratios.push_back(r.pairs_left / std::max(1.0, r.forecast.pairs_median));
        s.below_median += r.pairs_left <= r.forecast.pairs_median ? 1 : 0;
        s.within_range +=
            r.pairs_left >= r.forecast.pairs_low && r.pairs_left <= r.forecast.pairs_high ? 1 : 0;
        s.mean_left += r.pairs_left;
        s.mean_predicted += r.forecast.pairs_mean;
    }
    for (Decile& d : s.deciles) {
        if (d.tests == 0) continue;
        d.predicted /= d.tests;
        d.observed /= d.tests;
        if (d.tests >= 30)
            s.max_decile_gap = std::max(s.max_decile_gap, std::abs(d.observed - d.predicted));
    }
    s.timed = timed;
    if (timed > 0) {
        s.below_median /= timed;
        s.within_range /= timed;
        s.mean_left /= timed;
        s.mean_predicted /= timed;
    }
    s.median_ratio = median_of(ratios);
    return s;
}

}  // namespace sparring::stats::calibration
