// sparring-bench-forecast: the calibration of the SPRT forecast (stats/forecast.h) over many
// simulated SPRTs, the figures of BENCHMARKS.md ("The SPRT forecast's calibration"). The small
// version of the same simulation is the test ForecastCalibration.* (tests/test_forecast.cpp).
//
//   sparring-bench-forecast [TESTS_PER_SETUP] [SEED]
#include "forecast_calibration.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace sparring::stats;
using namespace sparring::stats::calibration;

void print(const std::string& title, const Summary& s, double seconds) {
    std::printf("\n%s: %d forecasts, %d with times (%.1f s)\n", title.c_str(), s.tests, s.timed,
                seconds);
    std::printf("  P(H1) decile   forecasts   predicted   observed   gap\n");
    for (size_t i = 0; i < s.deciles.size(); ++i) {
        const Decile& d = s.deciles[i];
        if (d.tests == 0) continue;
        std::printf("  %3zu-%3zu%%       %6d      %6.1f%%    %6.1f%%   %+5.1f\n", i * 10,
                    i * 10 + 10, d.tests, 100 * d.predicted, 100 * d.observed,
                    100 * (d.observed - d.predicted));
    }
    std::printf("  largest gap (deciles of 30 or more): %.1f points\n", 100 * s.max_decile_gap);
    std::printf("  pairs left over the predicted median: median %.3f\n", s.median_ratio);
    std::printf("  ended within the predicted median: %.1f%%, within the 90%% range: %.1f%%\n",
                100 * s.below_median, 100 * s.within_range);
    std::printf("  pairs left: mean %.0f, mean of the predicted means %.0f (ratio %.3f)\n",
                s.mean_left, s.mean_predicted, s.mean_left / s.mean_predicted);
}

}  // namespace

int main(int argc, char** argv) {
    const int tests = argc > 1 ? std::atoi(argv[1]) : 20000;
    const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261207;
    std::vector<Setup> setups(2);
    setups[0].params = {0, 10, 0.05, 0.05, Model::Logistic};
    setups[0].elo_low = -10;
    setups[0].elo_high = 20;
    setups[1].params = {0, 25, 0.05, 0.05, Model::Normalized};
    setups[1].elo_low = -16;
    setups[1].elo_high = 32;
    std::vector<Record> all;
    for (size_t i = 0; i < setups.size(); ++i) {
        Setup& setup = setups[i];
        setup.max_pairs = 4000;
        setup.forecast_from = 40;
        setup.forecast_to = 2000;
        setup.tests = tests;
        setup.points = 3;
        setup.timed_records = tests;
        setup.seed = seed + i;
        const auto start = std::chrono::steady_clock::now();
        const std::vector<Record> records = simulate(setup);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        all.insert(all.end(), records.begin(), records.end());
        const SprtParams& p = setup.params;
        print(std::string(model_name(p.model)) + " [" + std::to_string(int(p.elo0)) + ", " +
                  std::to_string(int(p.elo1)) + "], true Elo in [" +
                  std::to_string(int(setup.elo_low)) + ", " + std::to_string(int(setup.elo_high)) +
                  "], at most " + std::to_string(setup.max_pairs) + " pairs",
              summarize(records), seconds);
    }
    print("both", summarize(all), 0);
}
