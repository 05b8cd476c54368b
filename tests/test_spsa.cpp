// Pins the SPSA gain sequences to numbers worked by hand, and checks the perturbation, the
// stochastic rounding, the update and the clipping.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "stats/spsa.h"

namespace {

using namespace sparring::spsa;

// N = 1000 pairs, c_end = 10, r_end = 0.002, worked by hand:
//   A = 0.1 N = 100;  c = 10 * 1000^0.101 = 10 * e^(0.101 * 6.907755) = 10 * e^0.697683
//     = 20.0909;  a = 0.002 * 10^2 * 1100^0.602 = 0.2 * e^(0.602 * 7.003065) = 0.2 * e^4.215845
//     = 0.2 * 67.751 = 13.550
//   k = 1:    c_1 = 20.0909;  (A + 1)^0.602 = 101^0.602 = e^2.778303 = 16.0917
//             R_1 = 13.550 / 16.0917 / 20.0909^2 = 0.842066 / 403.645 = 0.0020862
//   k = 10:   c_10 = 20.0909 / 10^0.101 = 20.0909 / 1.261828 = 15.9221
//             (A + 10)^0.602 = 110^0.602 = e^2.829689 = 16.9402
//             R_10 = 13.550 / 16.9402 / 15.9221^2 = 0.799872 / 253.513 = 0.0031552
//   k = 1000: c_1000 = c / N^0.101 = c_end = 10;  R_1000 = a / (A + N)^0.602 / c_end^2
//             = r_end c_end^2 / c_end^2 = r_end = 0.002
TEST(Spsa, GainSequencesMatchWorkedNumbers) {
    Param p{"KnightValue", 300, 100, 500, 10, 0.002};
    const Schedule s = make_schedule(1000);
    EXPECT_DOUBLE_EQ(s.A, 100);
    EXPECT_DOUBLE_EQ(s.alpha, 0.602);
    EXPECT_DOUBLE_EQ(s.gamma, 0.101);

    const Gain g1 = gain(p, s, 1);
    EXPECT_NEAR(g1.c_k, 20.0909, 1e-4);
    EXPECT_NEAR(g1.r_k, 0.0020862, 1e-7);
    const Gain g10 = gain(p, s, 10);
    EXPECT_NEAR(g10.c_k, 15.9221, 1e-4);
    EXPECT_NEAR(g10.r_k, 0.0031552, 1e-7);
    const Gain g1000 = gain(p, s, 1000);
    EXPECT_NEAR(g1000.c_k, 10, 1e-12);
    EXPECT_NEAR(g1000.r_k, 0.002, 1e-15);
    EXPECT_THROW(gain(p, s, 0), std::invalid_argument);
}

TEST(Spsa, DefaultsComeFromTheBounds) {
    const Param p = make_param("BishopValue", 330, 100, 500);
    EXPECT_EQ(p.name, "BishopValue");
    EXPECT_DOUBLE_EQ(p.c_end, 20);  // (500 - 100) / 20
    EXPECT_DOUBLE_EQ(p.r_end, 0.002);
    EXPECT_EQ(validate(p), "");
}

TEST(Spsa, ValidationRejectsBadParameters) {
    auto with = [](auto change) {
        Param p = make_param("P", 10, 0, 20);
        change(p);
        return validate(p);
    };
    EXPECT_NE(with([](Param& p) { p.min = 20; }), "");
    EXPECT_NE(with([](Param& p) { p.start = 21; }), "");
    EXPECT_NE(with([](Param& p) { p.c_end = 0; }), "");
    EXPECT_NE(with([](Param& p) { p.r_end = -1; }), "");
    EXPECT_NE(with([](Param& p) { p.max = 20.5; }), "");
    EXPECT_NE(with([](Param& p) { p.start = std::nan(""); }), "");
    EXPECT_NE(with([](Param& p) { p.name.clear(); }), "");
    EXPECT_THROW(make_schedule(0), std::invalid_argument);
}

// The same seed and step give the same perturbation; another seed or step gives other signs.
TEST(Spsa, StepsAreDeterministicFromSeedAndIndex) {
    const std::vector<Param> params(64, make_param("P", 50.5, 0, 100));
    const std::vector<double> theta(64, 50.5);
    const Schedule s = make_schedule(500);
    const Step a = make_step(params, theta, s, 7, 42);
    const Step b = make_step(params, theta, s, 7, 42);
    EXPECT_EQ(a.signs, b.signs);
    EXPECT_EQ(a.plus, b.plus);
    EXPECT_EQ(a.minus, b.minus);
    EXPECT_NE(make_step(params, theta, s, 7, 43).signs, a.signs);
    EXPECT_NE(make_step(params, theta, s, 8, 42).signs, a.signs);
    EXPECT_EQ(a.k, 7);
}

// The coordinator applies a pair's result with the signs and gains recomputed from (seed, k)
// when the report arrives, while the run's values have moved since the pair was leased: so
// signs and gains must not depend on theta, only the perturbed values do.
TEST(Spsa, SignsAndGainsDependOnSeedAndStepAlone) {
    const std::vector<Param> params(16, make_param("P", 500, 0, 1000));
    const Schedule s = make_schedule(300);
    const std::vector<double> low(16, 120.25), high(16, 870.75);
    for (int64_t k = 1; k <= 300; k += 37) {
        const Step a = make_step(params, low, s, k, 77);
        const Step b = make_step(params, high, s, k, 77);
        EXPECT_EQ(a.signs, b.signs);
        for (size_t i = 0; i < a.gains.size(); ++i) {
            EXPECT_EQ(a.gains[i].c_k, b.gains[i].c_k);
            EXPECT_EQ(a.gains[i].r_k, b.gains[i].r_k);
        }
        EXPECT_NE(a.plus, b.plus);
    }
}

// Signs are +-1 with about equal frequency, and each perturbed value is theta +- c_k delta
// rounded down or up.
TEST(Spsa, PerturbationIsSymmetricAndRounded) {
    const std::vector<Param> params = {make_param("P", 37.3, 0, 100)};
    const std::vector<double> theta = {37.3};
    const Schedule s = make_schedule(2000);
    int plus_signs = 0;
    for (int64_t k = 1; k <= 2000; ++k) {
        const Step step = make_step(params, theta, s, k, 2024);
        ASSERT_TRUE(step.signs[0] == 1 || step.signs[0] == -1);
        plus_signs += step.signs[0] == 1;
        const double c = step.gains[0].c_k;
        const double plus = 37.3 + c * step.signs[0], minus = 37.3 - c * step.signs[0];
        EXPECT_TRUE(step.plus[0] == int(std::floor(plus)) || step.plus[0] == int(std::ceil(plus)));
        EXPECT_TRUE(step.minus[0] == int(std::floor(minus)) ||
                    step.minus[0] == int(std::ceil(minus)));
    }
    // Binomial(2000, 1/2): standard deviation 22.4; allow 5 of them.
    EXPECT_NEAR(plus_signs, 1000, 112);
}

// Rounding up with probability equal to the fraction makes the mean of the rounded values
// converge to the exact value: with fraction f the error is 1 - f or -f, variance f (1 - f).
TEST(Spsa, StochasticRoundingIsUnbiased) {
    const std::vector<Param> params = {make_param("P", 10, 0, 100)};
    const Schedule s = make_schedule(100000);
    const std::vector<double> theta = {40.37};
    double error_sum = 0;
    const int n = 100000;
    for (int64_t k = 1; k <= n; ++k) {
        const Step step = make_step(params, theta, s, k, 99);
        error_sum += step.plus[0] - (theta[0] + step.gains[0].c_k * step.signs[0]);
    }
    // The per-draw standard deviation is at most 1/2, so the mean's is at most 0.5 / sqrt(n).
    EXPECT_NEAR(error_sum / n, 0, 5 * 0.5 / std::sqrt(double(n)));
}

// Perturbed values are clipped to the bounds before rounding.
TEST(Spsa, PerturbationIsClipped) {
    const std::vector<Param> params = {make_param("P", 99, 0, 100)};
    const std::vector<double> theta = {99.5};
    const Schedule s = make_schedule(1000);
    for (int64_t k = 1; k <= 50; ++k) {
        const Step step = make_step(params, theta, s, k, 5);
        const int up = step.signs[0] == 1 ? step.plus[0] : step.minus[0];
        EXPECT_EQ(up, 100);  // 99.5 + c_k (>= 5) clipped to 100
    }
}

// theta <- clip(theta + R_k c_k (W - L) delta): with c_k = 15.9221 and R_k = 0.0031552 at
// k = 10 of 1000 (worked above), W - L = 2 and delta = +1 moves theta by 2 * 0.0502372 =
// 0.1004744; the parameter with delta = -1 moves by the same amount down.
TEST(Spsa, UpdateFollowsTheFormula) {
    const std::vector<Param> params = {{"A", 300, 100, 500, 10, 0.002},
                                       {"B", 300, 100, 500, 10, 0.002}};
    const Schedule s = make_schedule(1000);
    std::vector<double> theta = {300, 300};
    Step step = make_step(params, theta, s, 10, 1);
    step.signs = {1, -1};
    apply_result(params, step, 2, theta);
    EXPECT_NEAR(theta[0], 300.1004744, 1e-5);
    EXPECT_NEAR(theta[1], 299.8995256, 1e-5);
    apply_result(params, step, -2, theta);
    EXPECT_NEAR(theta[0], 300, 1e-9);
    EXPECT_NEAR(theta[1], 300, 1e-9);
    apply_result(params, step, 0, theta);
    EXPECT_DOUBLE_EQ(theta[0], 300);
    EXPECT_THROW(apply_result(params, step, 3, theta), std::invalid_argument);
    std::vector<double> short_theta = {300};
    EXPECT_THROW(apply_result(params, step, 1, short_theta), std::invalid_argument);
}

TEST(Spsa, UpdateIsClippedToBounds) {
    const std::vector<Param> params = {{"A", 499.99, 100, 500, 10, 0.5}};
    const Schedule s = make_schedule(1000);
    std::vector<double> theta = {499.99};
    Step step = make_step(params, theta, s, 1, 3);
    step.signs = {1};
    apply_result(params, step, 2, theta);
    EXPECT_DOUBLE_EQ(theta[0], 500);
    step.signs = {-1};
    for (int i = 0; i < 1000; ++i) apply_result(params, step, 2, theta);
    EXPECT_DOUBLE_EQ(theta[0], 100);
}

// A noiseless pair result that favours the value 200 pulls theta there from 300.
TEST(Spsa, ConvergesOnANoiselessObjective) {
    const std::vector<Param> params = {make_param("A", 300, 0, 1000)};
    const int64_t pairs = 4000;
    const Schedule s = make_schedule(pairs);
    std::vector<double> theta = {300};
    for (int64_t k = 1; k <= pairs; ++k) {
        const Step step = make_step(params, theta, s, k, 11);
        const double plus_loss = std::abs(step.plus[0] - 200.0);
        const double minus_loss = std::abs(step.minus[0] - 200.0);
        apply_result(params, step,
                     plus_loss < minus_loss   ? 1
                     : plus_loss > minus_loss ? -1
                                              : 0,
                     theta);
    }
    EXPECT_NEAR(theta[0], 200, 10);
}

}  // namespace
