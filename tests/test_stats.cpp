// Pins the match statistics to worked examples derived by hand, and the GSPRT log-likelihood
// ratios to a second implementation: a generic maximisation of the constrained likelihood.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <utility>
#include <vector>

#include "stats/stats.h"

namespace {

using namespace sparring::stats;

constexpr double NeloPerT = 800 / std::numbers::ln10;  // 347.4355855...

// Elo(x) = -400 log10(1/x - 1): a score of 3/4 is 400 log10(3) = 190.85 Elo; the inverse maps
// back; scores at or beyond 0 and 1 are clamped to 0.001 and 0.999 instead of going infinite.
TEST(Stats, EloOfScoreMatchesTheLogisticDefinition) {
    EXPECT_NEAR(elo_of_score(0.75), 190.848501, 1e-6);
    EXPECT_NEAR(elo_of_score(0.25), -190.848501, 1e-6);
    EXPECT_DOUBLE_EQ(elo_of_score(0.5), 0.0);
    EXPECT_NEAR(score_of_elo(190.848501), 0.75, 1e-9);
    for (double elo : {-700.0, -35.0, 0.0, 3.0, 400.0})
        EXPECT_NEAR(elo_of_score(score_of_elo(elo)), elo, 1e-9);
    EXPECT_NEAR(elo_of_score(1.0), 400 * std::log10(999.0), 1e-9);
    EXPECT_NEAR(elo_of_score(-3.0), -400 * std::log10(999.0), 1e-9);
}

// Worked by hand: L = 20, D = 50, W = 30 in 100 games.
//   mu = (50 * 1/2 + 30) / 100 = 0.55;  E[a^2] = (50 * 1/4 + 30) / 100 = 0.425
//   sigma^2 = 0.425 - 0.55^2 = 0.1225, sigma = 0.35;  sigma / sqrt(n) = 0.035
//   Elo = -400 log10(1/0.55 - 1) = 400 log10(11/9) = 34.8601
//   CI: mu -+ 1.959964 * 0.035 = 0.481401, 0.618599 -> -12.9297, 84.0108
//   LOS = Phi(0.05 / 0.035) = Phi(1.428571) = 0.92344 (normal table: Phi(1.42) = 0.92220,
//   Phi(1.43) = 0.92364, interpolated)
//   nElo = 347.4356 * 0.05 / 0.35 = 49.6337
//   central moments: m3 = .2(-.55)^3 + .5(-.05)^3 + .3(.45)^3 = -0.006,
//   m4 = .2(.55)^4 + .5(.05)^4 + .3(.45)^4 = 0.03060625; t = 1/7,
//   skew = -0.006 / 0.35^3 = -0.139942, excess kurtosis = 0.03060625 / 0.35^4 - 3 = -0.960433
//   var(t) = 1 - t skew + t^2 (kurt + 2) / 4 = 1.025296
//   nElo half width = 347.4356 * 1.959964 * sqrt(1.025296 / 100) = 68.952
TEST(Stats, TrinomialWorkedExample) {
    const EloEstimate e = estimate(Trinomial{20, 50, 30});
    EXPECT_EQ(e.games, 100);
    EXPECT_EQ(e.pairs, 0);
    EXPECT_NEAR(e.score, 0.55, 1e-12);
    EXPECT_NEAR(e.elo, 400 * std::log10(11.0 / 9.0), 1e-9);
    EXPECT_NEAR(e.elo, 34.8601, 1e-4);
    EXPECT_NEAR(e.elo_low, -12.9297, 1e-4);
    EXPECT_NEAR(e.elo_high, 84.0108, 1e-4);
    EXPECT_NEAR(e.los, 0.92344, 2e-5);
    EXPECT_NEAR(e.nelo, 49.6337, 1e-4);
    EXPECT_NEAR(e.nelo_high - e.nelo, 68.952, 1e-3);
    EXPECT_NEAR(e.nelo - e.nelo_low, 68.952, 1e-3);
}

// Worked by hand: [LL, LD, DD+WL, WD, WW] = [5, 20, 40, 25, 10], 100 pairs, pair scores
// A = 0, 1/4, 1/2, 3/4, 1.
//   mu = (20/4 + 40/2 + 25 * 3/4 + 10) / 100 = 0.5375
//   E[A^2] = (20/16 + 40/4 + 25 * 9/16 + 10) / 100 = 0.353125
//   Var(A) = 0.353125 - 0.5375^2 = 0.06421875, sigma_pair = 0.2534141
//   per-game variance = Var(pair total) / 2 = 4 Var(A) / 2 = 0.1284375 over n = 200 games:
//   sigma / sqrt(n) = sqrt(0.1284375 / 200) = 0.02534141
//   Elo = -400 log10(1/0.5375 - 1) = 400 log10(43/37) = 26.1082
//   CI: mu -+ 1.959964 * 0.02534141 = 0.487832, 0.587168 -> -8.4570, 61.1958
//   LOS = Phi(0.0375 / 0.02534141) = Phi(1.479791) = 0.93054 (table: Phi(1.47) = 0.92922,
//   Phi(1.48) = 0.93056, interpolated)
//   nElo = 347.4356 / sqrt(2) * 0.0375 / 0.2534141 = 245.6741 * 0.1479791 = 36.3546
TEST(Stats, PentanomialWorkedExample) {
    const EloEstimate e = estimate(Pentanomial{{5, 20, 40, 25, 10}});
    EXPECT_EQ(e.pairs, 100);
    EXPECT_EQ(e.games, 200);
    EXPECT_NEAR(e.score, 0.5375, 1e-12);
    EXPECT_NEAR(e.elo, 400 * std::log10(43.0 / 37.0), 1e-9);
    EXPECT_NEAR(e.elo_low, -8.4570, 1e-3);
    EXPECT_NEAR(e.elo_high, 61.1958, 1e-3);
    EXPECT_NEAR(e.los, 0.93054, 3e-5);
    EXPECT_NEAR(e.nelo, 36.3546, 1e-4);
}

// Pairs of two independent games with game law (L, D, W) = (.2, .5, .3) have pair law
// LL .04, LD .2, DD+WL .25 + .12, WD .3, WW .09: with the pair variance halved, the
// pentanomial estimate must equal the trinomial one of the same 2000 games.
TEST(Stats, PentanomialOfIndependentGamesMatchesTrinomial) {
    const EloEstimate penta = estimate(Pentanomial{{40, 200, 370, 300, 90}});
    const EloEstimate tri = estimate(Trinomial{400, 1000, 600});
    EXPECT_EQ(penta.games, tri.games);
    EXPECT_NEAR(penta.score, tri.score, 1e-12);
    EXPECT_NEAR(penta.elo, tri.elo, 1e-9);
    EXPECT_NEAR(penta.elo_low, tri.elo_low, 1e-9);
    EXPECT_NEAR(penta.elo_high, tri.elo_high, 1e-9);
    EXPECT_NEAR(penta.los, tri.los, 1e-12);
    EXPECT_NEAR(penta.nelo, tri.nelo, 1e-9);
}

// Returns the t-value (mu - 1/2) / sigma of unnormalized weights w on scores a.
double t_value(const std::vector<double>& a, const std::vector<double>& w) {
    double total = 0, m1 = 0, m2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        total += w[i], m1 += w[i] * a[i], m2 += w[i] * a[i] * a[i];
    m1 /= total;
    m2 /= total;
    return (m1 - 0.5) / std::sqrt(m2 - m1 * m1);
}

// A second derivation of the nElo interval: the delta method with a numerical gradient of
// the t-value and the multinomial covariance diag(p) - p p^T, instead of the moment formula.
TEST(Stats, NormalizedEloIntervalMatchesNumericalDeltaMethod) {
    struct Case {
        std::vector<double> counts;
        double per_sample;  // nElo per unit of t
    };
    const std::vector<Case> cases = {
        {{20, 50, 30}, NeloPerT},
        {{5, 20, 40, 25, 10}, NeloPerT / std::numbers::sqrt2},
        {{300, 4000, 20000, 5000, 700}, NeloPerT / std::numbers::sqrt2},
        {{1234, 3456, 2345}, NeloPerT},
    };
    for (const Case& c : cases) {
        const std::size_t k = c.counts.size();
        double n = 0;
        for (double x : c.counts) n += x;
        std::vector<double> a, p;
        for (std::size_t i = 0; i < k; ++i)
            a.push_back(double(i) / double(k - 1)), p.push_back(c.counts[i] / n);
        std::vector<double> gradient(k);
        for (std::size_t i = 0; i < k; ++i) {
            const double h = 1e-6;
            std::vector<double> up = p, down = p;
            up[i] += h;
            down[i] -= h;
            gradient[i] = (t_value(a, up) - t_value(a, down)) / (2 * h);
        }
        double variance = 0;
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t j = 0; j < k; ++j)
                variance += gradient[i] * gradient[j] * ((i == j ? p[i] : 0) - p[i] * p[j]);
        const double half_width = c.per_sample * 1.959963985 * std::sqrt(variance / n);
        const EloEstimate e =
            k == 3 ? estimate(Trinomial{int64_t(c.counts[0]), int64_t(c.counts[1]),
                                        int64_t(c.counts[2])})
                   : estimate(Pentanomial{{int64_t(c.counts[0]), int64_t(c.counts[1]),
                                           int64_t(c.counts[2]), int64_t(c.counts[3]),
                                           int64_t(c.counts[4])}});
        EXPECT_NEAR(e.nelo, c.per_sample * t_value(a, p), 1e-9);
        EXPECT_NEAR((e.nelo_high - e.nelo_low) / 2, half_width, 1e-5 * half_width);
    }
}

// Empty, all-draw and one-sided data give finite numbers in the right places.
TEST(Stats, EdgeCasesStayFinite) {
    const EloEstimate empty = estimate(Pentanomial{});
    EXPECT_EQ(empty.games, 0);
    EXPECT_NEAR(empty.elo, 0, 1e-9);
    EXPECT_NEAR(empty.los, 0.5, 1e-12);
    const EloEstimate draws = estimate(Trinomial{0, 500, 0});
    EXPECT_NEAR(draws.elo, 0, 1e-9);
    EXPECT_NEAR(draws.nelo, 0, 1e-9);
    EXPECT_LT(draws.elo_high - draws.elo_low, 1.0);
    const EloEstimate wins = estimate(Trinomial{0, 0, 100});
    EXPECT_NEAR(wins.elo, 400 * std::log10(999.0), 1e-6);
    EXPECT_GT(wins.los, 0.999999);
    const EloEstimate losses = estimate(Pentanomial{{50, 0, 0, 0, 0}});
    EXPECT_NEAR(losses.elo, -400 * std::log10(999.0), 1e-6);
    EXPECT_LT(losses.los, 1e-6);
    for (const EloEstimate& e : {empty, draws, wins, losses})
        for (double x :
             {e.score, e.elo, e.elo_low, e.elo_high, e.los, e.nelo, e.nelo_low, e.nelo_high})
            EXPECT_TRUE(std::isfinite(x));
    EXPECT_THROW(estimate(Trinomial{-1, 0, 0}), std::invalid_argument);
    EXPECT_THROW(estimate(Pentanomial{{0, 0, 2'000'000'000'000'000, 0, 0}}), std::invalid_argument);
}

// A = ln(beta / (1 - alpha)), B = ln((1 - beta) / alpha): for 0.05/0.05, -+ln 19 = -+2.944439;
// for alpha 0.1, beta 0.2: ln(0.2 / 0.9) = -1.504077 and ln(0.8 / 0.1) = ln 8 = 2.079442.
TEST(Sprt, BoundsFollowAlphaAndBeta) {
    SprtParams p;
    SprtResult r = sprt(Trinomial{1, 1, 1}, p);
    EXPECT_NEAR(r.lower, -2.944439, 1e-6);
    EXPECT_NEAR(r.upper, 2.944439, 1e-6);
    p.alpha = 0.1;
    p.beta = 0.2;
    r = sprt(Trinomial{1, 1, 1}, p);
    EXPECT_NEAR(r.lower, -1.504077, 1e-6);
    EXPECT_NEAR(r.upper, 2.079442, 1e-6);
}

// Maximises f over R^n from x0 with the Nelder-Mead simplex method, restarted until it stalls.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                std::vector<double> x0, double step) {
    const std::size_t n = x0.size();
    for (int restart = 0; restart < 6; ++restart) {
        std::vector<std::vector<double>> s(n + 1, x0);
        for (std::size_t i = 0; i < n; ++i) s[i + 1][i] += step;
        std::vector<double> v(n + 1);
        for (std::size_t i = 0; i <= n; ++i) v[i] = f(s[i]);
        for (int iteration = 0; iteration < 20000; ++iteration) {
            std::vector<std::size_t> order(n + 1);
            for (std::size_t i = 0; i <= n; ++i) order[i] = i;
            std::sort(order.begin(), order.end(), [&](auto i, auto j) { return v[i] > v[j]; });
            const std::size_t best = order[0], worst = order[n], second = order[n - 1];
            if (std::abs(v[best] - v[worst]) < 1e-16) break;
            std::vector<double> centre(n, 0);
            for (std::size_t i = 0; i <= n; ++i)
                if (i != worst)
                    for (std::size_t d = 0; d < n; ++d) centre[d] += s[i][d] / double(n);
            auto along = [&](double t) {
                std::vector<double> x(n);
                for (std::size_t d = 0; d < n; ++d)
                    x[d] = centre[d] + t * (s[worst][d] - centre[d]);
                return x;
            };
            const auto reflected = along(-1);
            const double fr = f(reflected);
            if (fr > v[best]) {
                const auto expanded = along(-2);
                const double fe = f(expanded);
                if (fe > fr)
                    s[worst] = expanded, v[worst] = fe;
                else
                    s[worst] = reflected, v[worst] = fr;
            } else if (fr > v[second]) {
                s[worst] = reflected, v[worst] = fr;
            } else {
                const auto contracted = along(0.5);
                const double fc = f(contracted);
                if (fc > v[worst]) {
                    s[worst] = contracted, v[worst] = fc;
                } else {
                    for (std::size_t i = 0; i <= n; ++i)
                        if (i != best) {
                            for (std::size_t d = 0; d < n; ++d)
                                s[i][d] = s[best][d] + 0.5 * (s[i][d] - s[best][d]);
                            v[i] = f(s[i]);
                        }
                }
            }
        }
        const std::size_t best = std::max_element(v.begin(), v.end()) - v.begin();
        x0 = s[best];
        step /= 10;
    }
    return x0;
}

// The regularized empirical law of counts, as the SPRT sees it.
struct Empirical {
    std::vector<double> a, p;
    double n = 0;
};

// Replaces zero counts by 1e-3 and normalizes.
Empirical empirical(const std::vector<int64_t>& counts) {
    Empirical e;
    for (int64_t c : counts) e.n += c == 0 ? 1e-3 : double(c);
    for (std::size_t i = 0; i < counts.size(); ++i) {
        e.a.push_back(double(i) / double(counts.size() - 1));
        e.p.push_back((counts[i] == 0 ? 1e-3 : double(counts[i])) / e.n);
    }
    return e;
}

// Returns sum p_i ln q_i, or -infinity when some q_i is not positive.
double log_likelihood(const Empirical& e, const std::vector<double>& q) {
    double sum = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
        if (!(q[i] > 0)) return -std::numeric_limits<double>::infinity();
        sum += e.p[i] * std::log(q[i]);
    }
    return sum;
}

// Completes a law on the scores from its inner weights q_1..q_{k-3}: the weights at scores 0,
// a_{k-2} and 1 are solved so that it sums to 1, has mean m and second moment m2.
std::vector<double> complete(const Empirical& e, std::vector<double> free, double m, double m2) {
    const std::size_t k = e.a.size();
    // Unknowns: the weights at indices 0, k-2 and k-1; solve the 3x3 linear system by Cramer.
    const std::size_t idx[3] = {0, k - 2, k - 1};
    double rhs[3] = {1, m, m2};
    for (std::size_t j = 1; j + 2 < k; ++j) {
        rhs[0] -= free[j - 1];
        rhs[1] -= free[j - 1] * e.a[j];
        rhs[2] -= free[j - 1] * e.a[j] * e.a[j];
    }
    double mat[3][3];
    for (int c = 0; c < 3; ++c)
        mat[0][c] = 1, mat[1][c] = e.a[idx[c]], mat[2][c] = e.a[idx[c]] * e.a[idx[c]];
    auto det = [](double x[3][3]) {
        return x[0][0] * (x[1][1] * x[2][2] - x[1][2] * x[2][1]) -
               x[0][1] * (x[1][0] * x[2][2] - x[1][2] * x[2][0]) +
               x[0][2] * (x[1][0] * x[2][1] - x[1][1] * x[2][0]);
    };
    const double d = det(mat);
    std::vector<double> q(k);
    for (std::size_t j = 1; j + 2 < k; ++j) q[j] = free[j - 1];
    for (int c = 0; c < 3; ++c) {
        double replaced[3][3];
        for (int r = 0; r < 3; ++r)
            for (int cc = 0; cc < 3; ++cc) replaced[r][cc] = cc == c ? rhs[r] : mat[r][cc];
        q[idx[c]] = det(replaced) / d;
    }
    return q;
}

// Returns the law q_i = (1 + lambda (a_i - 1/2)) / k: uniform, tilted linearly.
std::vector<double> linear_law(const Empirical& e, double lambda) {
    std::vector<double> q;
    for (double a : e.a) q.push_back((1 + lambda * (a - 0.5)) / double(e.a.size()));
    return q;
}

// Returns the mean and the second moment of a law on the empirical scores.
std::pair<double, double> moments(const Empirical& e, const std::vector<double>& q) {
    double m = 0, m2 = 0;
    for (std::size_t i = 0; i < q.size(); ++i) m += q[i] * e.a[i], m2 += q[i] * e.a[i] * e.a[i];
    return {m, m2};
}

// Returns the inner weights q_1..q_{k-3} of a law.
std::vector<double> inner(const std::vector<double>& q) {
    return std::vector<double>(q.begin() + 1, q.end() - 2);
}

// Returns the maximum of sum p_i ln q_i over laws q with mean s, found by Nelder-Mead over
// the inner weights and the second moment, the rest solved from the constraints.
double max_likelihood_with_mean(const Empirical& e, double s) {
    auto objective = [&](const std::vector<double>& x) {
        std::vector<double> free(x.begin(), x.end() - 1);
        return log_likelihood(e, complete(e, free, s, x.back()));
    };
    // Start from the linear tilt of the uniform law with mean s: its mean is 1/2 + lambda V.
    const auto [half, m2_uniform] = moments(e, linear_law(e, 0));
    const double lambda = (s - 0.5) / (m2_uniform - half * half);
    const std::vector<double> start = linear_law(e, lambda);
    std::vector<double> x0 = inner(start);
    x0.push_back(moments(e, start).second);
    EXPECT_TRUE(std::isfinite(objective(x0)));
    return objective(nelder_mead(objective, x0, 0.02));
}

// Returns the maximum of sum p_i ln q_i over laws q with (mu - 1/2) / sigma = t (t != 0),
// found by Nelder-Mead over the mean mu and the inner weights; the second moment follows from
// sigma = (mu - 1/2) / t.
double max_likelihood_with_t(const Empirical& e, double t) {
    auto objective = [&](const std::vector<double>& x) {
        const double mu = x[0];
        const double sigma = (mu - 0.5) / t;
        if (!(sigma > 0)) return -std::numeric_limits<double>::infinity();
        std::vector<double> free(x.begin() + 1, x.end());
        return log_likelihood(e, complete(e, free, mu, sigma * sigma + mu * mu));
    };
    // Start from the linear tilt of the uniform law with t-value t, found by bisection.
    auto t_of = [&](double lambda) {
        const auto [m, m2] = moments(e, linear_law(e, lambda));
        return (m - 0.5) / std::sqrt(m2 - m * m);
    };
    double lo = -1.99, hi = 1.99;
    for (int i = 0; i < 200; ++i) (t_of((lo + hi) / 2) < t ? lo : hi) = (lo + hi) / 2;
    const std::vector<double> start = linear_law(e, lo);
    std::vector<double> x0 = {moments(e, start).first};
    for (double w : inner(start)) x0.push_back(w);
    EXPECT_TRUE(std::isfinite(objective(x0)));
    return objective(nelder_mead(objective, x0, 0.01));
}

// Returns the GSPRT log-likelihood ratio computed by the generic maximisation.
double reference_llr(const std::vector<int64_t>& counts, const SprtParams& p) {
    const Empirical e = empirical(counts);
    const bool pairs = counts.size() == 5;
    auto maximum = [&](double elo) {
        if (p.model == Model::Logistic) return max_likelihood_with_mean(e, score_of_elo(elo));
        const double t = elo / NeloPerT * (pairs ? std::numbers::sqrt2 : 1.0);
        return t == 0 ? max_likelihood_with_mean(e, 0.5) : max_likelihood_with_t(e, t);
    };
    return e.n * (maximum(p.elo1) - maximum(p.elo0));
}

// Returns the library's log-likelihood ratio of the counts.
double library_llr(const std::vector<int64_t>& c, const SprtParams& p) {
    return c.size() == 3 ? sprt(Trinomial{c[0], c[1], c[2]}, p).llr
                         : sprt(Pentanomial{{c[0], c[1], c[2], c[3], c[4]}}, p).llr;
}

TEST(Sprt, LogLikelihoodRatioMatchesGenericMaximisation) {
    const std::vector<std::vector<int64_t>> data = {
        {20, 50, 30},     {1200, 3100, 1350},           {7, 0, 3},       {5, 20, 40, 25, 10},
        {0, 3, 10, 2, 0}, {412, 2208, 4532, 2350, 450}, {1, 0, 0, 0, 2},
    };
    struct Hypotheses {
        Model model;
        double elo0, elo1;
    };
    const std::vector<Hypotheses> hypotheses = {
        {Model::Logistic, 0, 5},   {Model::Logistic, -3, 1},      {Model::Logistic, 0, 50},
        {Model::Normalized, 0, 5}, {Model::Normalized, 0.5, 2.5}, {Model::Normalized, -10, 30},
    };
    for (const auto& counts : data)
        for (const Hypotheses& h : hypotheses) {
            SprtParams p;
            p.model = h.model;
            p.elo0 = h.elo0;
            p.elo1 = h.elo1;
            const double expected = reference_llr(counts, p);
            const double actual = library_llr(counts, p);
            EXPECT_NEAR(actual, expected, 1e-6 * (1 + std::abs(expected)))
                << "counts[0] " << counts[0] << " size " << counts.size() << " model "
                << model_name(h.model) << " elo0 " << h.elo0 << " elo1 " << h.elo1;
        }
}

// For many samples with small Elo bounds the GSPRT is close to the published Brownian
// approximation LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var).
TEST(Sprt, LogisticLlrIsCloseToBrownianApproximation) {
    const std::vector<int64_t> c = {10789, 19328, 33806, 19402, 10543};
    const Empirical e = empirical(c);
    double mu = 0, m2 = 0;
    for (std::size_t i = 0; i < 5; ++i) mu += e.p[i] * e.a[i], m2 += e.p[i] * e.a[i] * e.a[i];
    const double var = m2 - mu * mu;
    const double s0 = score_of_elo(-3), s1 = score_of_elo(1);
    const double approx = e.n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var);
    SprtParams p;
    p.model = Model::Logistic;
    p.elo0 = -3;
    p.elo1 = 1;
    EXPECT_NEAR(library_llr(c, p), approx, 0.01 * std::abs(approx));
}

// Swapping the players mirrors the counts and the hypotheses, and negates the LLR.
TEST(Sprt, MirroredDataNegateTheRatio) {
    for (Model model : {Model::Logistic, Model::Normalized}) {
        SprtParams p, mirrored;
        p.model = mirrored.model = model;
        p.elo0 = -1, p.elo1 = 4;
        mirrored.elo0 = -4, mirrored.elo1 = 1;
        EXPECT_NEAR(sprt(Pentanomial{{3, 40, 90, 30, 7}}, p).llr,
                    -sprt(Pentanomial{{7, 30, 90, 40, 3}}, mirrored).llr, 1e-9);
        EXPECT_NEAR(sprt(Trinomial{30, 41, 52}, p).llr, -sprt(Trinomial{52, 41, 30}, mirrored).llr,
                    1e-9);
    }
}

TEST(Sprt, StatesAtTheExtremes) {
    for (Model model : {Model::Logistic, Model::Normalized}) {
        SprtParams p;
        p.model = model;
        EXPECT_EQ(sprt(Pentanomial{{100, 800, 2000, 2000, 1100}}, p).state,
                  SprtResult::State::AcceptH1);
        EXPECT_EQ(sprt(Pentanomial{{1100, 2000, 2000, 800, 100}}, p).state,
                  SprtResult::State::AcceptH0);
        EXPECT_EQ(sprt(Trinomial{100, 200, 400}, p).state, SprtResult::State::AcceptH1);
        EXPECT_EQ(sprt(Trinomial{400, 200, 100}, p).state, SprtResult::State::AcceptH0);
        EXPECT_EQ(sprt(Pentanomial{{2, 10, 20, 10, 2}}, p).state, SprtResult::State::Continue);
        const SprtResult empty = sprt(Pentanomial{}, p);
        EXPECT_EQ(empty.state, SprtResult::State::Continue);
        EXPECT_LT(std::abs(empty.llr), 0.01);
        for (auto c : {std::array<int64_t, 5>{0, 0, 1000, 0, 0},
                       {0, 0, 0, 0, 1000000},
                       {1000000, 0, 0, 0, 0}})
            EXPECT_TRUE(std::isfinite(sprt(Pentanomial{c}, p).llr));
        EXPECT_TRUE(std::isfinite(sprt(Trinomial{0, 0, 500}, p).llr));
    }
}

TEST(Sprt, ValidationRejectsBadParameters) {
    SprtParams p;
    EXPECT_EQ(validate(p), "");
    auto with = [](auto change) {
        SprtParams q;
        change(q);
        return validate(q);
    };
    EXPECT_NE(with([](SprtParams& q) { q.elo0 = 5, q.elo1 = 5; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.elo0 = 6, q.elo1 = 5; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.alpha = 0; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.alpha = 1; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.beta = -0.1; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.alpha = 0.6, q.beta = 0.5; }), "");
    EXPECT_NE(with([](SprtParams& q) { q.elo1 = std::nan(""); }), "");
    EXPECT_NE(with([](SprtParams& q) { q.elo1 = 500; }), "");
    EXPECT_EQ(with([](SprtParams& q) { q.model = Model::Logistic, q.elo1 = 500; }), "");
    p.alpha = 2;
    EXPECT_THROW(sprt(Trinomial{1, 2, 3}, p), std::invalid_argument);
}

TEST(Sprt, NamesRoundTrip) {
    Model m = Model::Logistic;
    EXPECT_TRUE(parse_model("normalized", &m));
    EXPECT_EQ(m, Model::Normalized);
    EXPECT_EQ(model_name(m), "normalized");
    EXPECT_TRUE(parse_model("logistic", &m));
    EXPECT_EQ(m, Model::Logistic);
    EXPECT_FALSE(parse_model("bayeselo", &m));
    EXPECT_EQ(state_name(SprtResult::State::AcceptH1), "H1");
    EXPECT_EQ(state_name(SprtResult::State::AcceptH0), "H0");
    EXPECT_EQ(state_name(SprtResult::State::Continue), "continue");
}

}  // namespace
