#include "stats/forecast.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "stats/sequential.h"

namespace sparring::stats {

namespace {

constexpr int kTimes = 48;  // points of the remaining time's grid
// The prior of the true mean score: normal around the hypotheses' middle, with a standard
// deviation of this many times their distance (docs/statistics.md).
constexpr double kPriorWidths = 1.0;
constexpr double kOvershoot = 0.5826;  // -zeta(1/2) / sqrt(2 pi)

// Returns ln Phi(z), accurate far into the lower tail (where Phi itself underflows).
double log_phi(double z) {
    if (z > -30) return std::log(0.5 * std::erfc(-z / std::numbers::sqrt2));
    // Phi(z) = phi(z) / |z| (1 - 1/z^2 + 3/z^4 - ...) for z -> -infinity.
    const double z2 = z * z;
    return -z2 / 2 - std::log(-z) - 0.5 * std::log(2 * std::numbers::pi) +
           std::log1p(-1 / z2 + 3 / (z2 * z2));
}

// exp(exponent + ln Phi(z)), the exponent added before exp so that neither overflows alone.
// Below z = -1, Phi(z) < exp(-z^2 / 2): a term below e^-46 is left out without computing it.
double exp_phi(double exponent, double z) {
    if (z < -1 && exponent - z * z / 2 < -46) return 0;
    return std::exp(std::min(700.0, exponent + log_phi(z)));
}

// A Brownian motion with unit variance per pair and drift mu, from 0, absorbed at a < 0 < b.
struct Motion {
    double a, b, mu;

    // Returns the probability of ever leaving through b: with the scale function
    // s(x) = exp(-2 mu x), (s(0) - s(a)) / (s(b) - s(a)), written so that no exp overflows.
    double upper_ever() const {
        const double w = b - a;
        if (std::abs(mu * w) < 1e-9) return -a / w;
        if (mu < 0) return 1 - Motion{-b, -a, -mu}.upper_ever();
        return std::expm1(2 * mu * a) / std::expm1(-2 * mu * w);
    }

    // Returns the mean time to leave (Wald's identity: E[X_T] = mu E[T]; for mu = 0,
    // E[X_T^2] = E[T]).
    double mean_exit_time() const {
        const double p = upper_ever();
        if (std::abs(mu * (b - a)) < 1e-6) return -a * b;
        return (p * b + (1 - p) * a) / mu;
    }

    // Returns the probability of leaving through b before time t: the method of images sums
    // the single-bound first-passage laws of the images b - 2kw (w = b - a), each in closed
    // form, H_y(t) = Phi((mu t - y) / sqrt t) + exp(2 mu y) Phi((-y - mu t) / sqrt t) for a
    // level y > 0, weighted exp(2 k w mu) and signed (docs/statistics.md).
    double upper_by(double t) const {
        if (t <= 0) return 0;
        const double w = b - a, root = std::sqrt(t);
        const int k_max = 1 + int(std::min(99.0, std::ceil(4 * root / w)));
        double sum = 0;
        for (int k = -k_max; k <= k_max; ++k) {
            const double c = 2 * k * w * mu;
            if (k <= 0) {
                const double y = b - 2 * k * w;
                sum +=
                    exp_phi(c, (mu * t - y) / root) + exp_phi(c + 2 * mu * y, (-y - mu * t) / root);
            } else {
                const double z = 2 * k * w - b;
                sum -=
                    exp_phi(c, (-z - mu * t) / root) + exp_phi(c - 2 * mu * z, (mu * t - z) / root);
            }
        }
        return std::clamp(sum, 0.0, 1.0);
    }

    // Returns the probability of leaving through a before time t (the mirror image).
    double lower_by(double t) const { return Motion{-b, -a, -mu}.upper_by(t); }
};

// The posterior of the drift as points with their probabilities: each point stands for the
// interval between the midpoints to its neighbours and carries that interval's exact normal
// mass. Points every half standard deviation over +-5, and, where the probability of
// leaving through b turns from 0 to 1 (|drift| < 6 / w), every 0.5 / w too, so that a posterior
// much wider than that turn does not step over it.
struct Node {
    double drift = 0;
    double weight = 0;
};

std::vector<Node> posterior_nodes(double mean, double sd, double width) {
    std::vector<double> points;
    for (int i = -10; i <= 10; ++i) points.push_back(mean + 0.5 * i * sd);
    if (sd > 0) {
        const double step = 0.5 / width;
        for (int i = -12; i <= 12; ++i) {
            const double x = i * step;
            if (std::abs(x - mean) < 5 * sd) points.push_back(x);
        }
    }
    std::sort(points.begin(), points.end());
    std::vector<Node> nodes;
    const auto cdf = [&](double x) {
        return sd > 0     ? 0.5 * std::erfc(-(x - mean) / (sd * std::numbers::sqrt2))
               : x < mean ? 0
                          : 1;
    };
    for (size_t i = 0; i < points.size(); ++i) {
        if (i > 0 && points[i] - points[i - 1] < 1e-12) continue;
        nodes.push_back({points[i], 0});
    }
    double total = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const double low = i == 0 ? -INFINITY : (nodes[i - 1].drift + nodes[i].drift) / 2;
        const double high =
            i + 1 == nodes.size() ? INFINITY : (nodes[i].drift + nodes[i + 1].drift) / 2;
        nodes[i].weight = cdf(high) - cdf(low);
        total += nodes[i].weight;
    }
    for (Node& node : nodes) node.weight /= total;
    return nodes;
}

// Returns the time at which the increasing cdf sampled at `times` reaches q (linear between
// the samples), or the last time if it never does.
double quantile(const std::vector<double>& times, const std::vector<double>& cdf, double q) {
    for (size_t j = 1; j < times.size(); ++j) {
        if (cdf[j] < q) continue;
        const double rise = cdf[j] - cdf[j - 1];
        const double f = rise > 0 ? (q - cdf[j - 1]) / rise : 0;
        return times[j - 1] + f * (times[j] - times[j - 1]);
    }
    return times.back();
}

}  // namespace

void stop_error_rates(double llr, double lower, double upper, SprtForecast* forecast) {
    // The LLR of H1 over H0 drifts by -v/2 per pair under H0 and +v/2 under H1 (v its
    // variance), so exp(LLR) and exp(-LLR) are the scale functions: a test between l and u
    // accepts H1 under H0 with probability (1 - e^l) / (e^u - e^l), and H0 under H1 with
    // probability (e^-u - 1) / (e^-u - e^-l).
    const auto alpha = [](double l, double u) {
        return -std::expm1(l) / (std::exp(u) - std::exp(l));
    };
    const auto beta = [](double l, double u) {
        return std::expm1(-u) / (std::exp(-u) - std::exp(-l));
    };
    forecast->stop_accepts_h1 = llr >= 0;
    if (llr >= 0) {
        forecast->stop_alpha = llr > 0 ? alpha(lower, llr) : 1;
        forecast->stop_beta = llr > 0 ? beta(lower, llr) : 0;
    } else {
        forecast->stop_alpha = alpha(llr, upper);
        forecast->stop_beta = beta(llr, upper);
    }
}

SprtForecast forecast_motion(double distance_low, double distance_high, double drift,
                             double drift_sd, int64_t pairs_left, bool with_times) {
    SprtForecast f;
    if (distance_high <= 0 || distance_low <= 0) {
        (distance_high <= 0 ? f.p_h1 : f.p_h0) = 1;
        return f;
    }
    if (pairs_left <= 0) {
        f.p_undecided = 1;
        return f;
    }
    const double a = -distance_low, b = distance_high, horizon = double(pairs_left);
    const std::vector<Node> nodes = posterior_nodes(drift, drift_sd, b - a);
    std::vector<Motion> motions;
    double longest = 0;
    for (const Node& node : nodes) {
        motions.push_back({a, b, node.drift});
        longest = std::max(longest, motions.back().mean_exit_time());
    }
    // The grid of times: up to 10 times the longest mean exit (past it, a fraction below
    // e^-10 of any motion is still inside) or the pairs left, denser near 0.
    const double t_max = std::min(horizon, 10 * longest);
    const bool truncated = t_max >= horizon;
    std::vector<double> times(kTimes + 1), cdf(kTimes + 1, 0.0);
    for (int j = 0; j <= kTimes; ++j) times[size_t(j)] = t_max * double(j * j) / (kTimes * kTimes);
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Motion& m = motions[i];
        for (size_t j = 1; with_times && j < times.size(); ++j)
            cdf[j] += nodes[i].weight * std::min(1.0, m.upper_by(times[j]) + m.lower_by(times[j]));
        if (truncated) {
            f.p_h1 += nodes[i].weight * m.upper_by(horizon);
            f.p_h0 += nodes[i].weight * m.lower_by(horizon);
        } else {
            const double up = m.upper_ever();
            f.p_h1 += nodes[i].weight * up;
            f.p_h0 += nodes[i].weight * (1 - up);
            f.pairs_mean += nodes[i].weight * m.mean_exit_time();
        }
    }
    for (size_t j = 1; j < cdf.size(); ++j) cdf[j] = std::clamp(cdf[j], cdf[j - 1], 1.0);
    if (truncated) {
        // The mean of min(T, horizon): the integral of the survival over [0, horizon].
        for (size_t j = 1; with_times && j < times.size(); ++j)
            f.pairs_mean += (times[j] - times[j - 1]) * (2 - cdf[j] - cdf[j - 1]) / 2;
        const double decided = f.p_h1 + f.p_h0;
        if (decided > 1) {
            f.p_h1 /= decided;
            f.p_h0 /= decided;
        }
        f.p_undecided = std::max(0.0, 1 - f.p_h1 - f.p_h0);
    }
    if (!with_times) return f;
    f.pairs_low = quantile(times, cdf, 0.05);
    f.pairs_median = quantile(times, cdf, 0.5);
    f.pairs_high = quantile(times, cdf, 0.95);
    return f;
}

SprtForecast forecast_sprt(const Pentanomial& results, const SprtParams& params, int64_t pairs_left,
                           double pairs_per_check, bool with_times) {
    const SprtResult sprt_result = sprt(results, params);  // validates counts and parameters
    const PairScores scores = pair_scores(results, params);
    const double n = scores.pairs, mean = scores.mean, sigma = scores.sigma;
    const double theta0 = scores.theta0, theta1 = scores.theta1;
    if (n < 1) throw std::invalid_argument("no game pairs to forecast from");
    // One pair's LLR has the standard deviation (theta1 - theta0) / sigma and the drift
    // (theta1 - theta0) / sigma^2 (mu - middle).
    const double middle = (theta0 + theta1) / 2;
    const double llr_sd = (theta1 - theta0) / sigma;
    const double llr = sprt_result.llr;
    // The drift (mu - middle) / sigma: the data alone give it the normal likelihood around
    // the observed one with variance 1 / n; the prior, normal around 0 (the hypotheses' middle)
    // with a standard deviation of kPriorWidths times theta1 - theta0, shrinks it towards 0.
    const double prior_precision = 1 / std::pow(kPriorWidths * llr_sd, 2);
    const double precision = n + prior_precision;
    const double drift = n * (mean - middle) / sigma / precision;
    SprtForecast f;
    if (llr > sprt_result.lower && llr < sprt_result.upper) {
        // A test checked every k pairs passes its bound by about 0.5826 sqrt(k) standard
        // deviations of one pair's LLR on average (Siegmund's correction of a random walk's
        // overshoot): the motion's bounds are that much further out.
        const double overshoot = kOvershoot * std::sqrt(std::max(1.0, pairs_per_check));
        f = forecast_motion((llr - sprt_result.lower) / llr_sd + overshoot,
                            (sprt_result.upper - llr) / llr_sd + overshoot, drift,
                            1 / std::sqrt(precision), pairs_left, with_times);
        stop_error_rates(llr, sprt_result.lower, sprt_result.upper, &f);
    } else {
        (llr >= sprt_result.upper ? f.p_h1 : f.p_h0) = 1;
        f.stop_accepts_h1 = llr >= sprt_result.upper;
        f.stop_alpha = params.alpha;
        f.stop_beta = params.beta;
    }
    return f;
}

}  // namespace sparring::stats
