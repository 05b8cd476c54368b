#include "stats/sequential.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace sparring::stats {

namespace {

constexpr double kRegularizer = 1e-3;  // replaces a zero count, as the estimates do
constexpr double kNeloPerT = 800 / std::numbers::ln10;
constexpr int kSimpson = 200;  // intervals of each numerical integral (even)

// A Brownian motion with unit variance per unit time and drift mu, from 0, absorbed at the
// bounds a < 0 < b. Its laws come from the method of images: the density of the paths still
// inside at time t is exp(mu x - mu^2 t / 2) sum_k [phi_t(x - 2kw) - phi_t(x - 2b + 2kw)]
// with w = b - a (each pair of images cancels on a bound), and the rate at which paths leave
// through b at time s is exp(mu b - mu^2 s / 2) sum_k (b - 2kw) / s phi_s(b - 2kw); through a,
// by the mirror image x -> -x, exp(mu a - mu^2 s / 2) sum_k (-a - 2kw) / s phi_s(-a - 2kw).
class AbsorbedMotion {
  public:
    AbsorbedMotion(double a, double b, double mu) : a_(a), b_(b), w_(b - a), mu_(mu) {}

    // Returns the probability of leaving through b before time t.
    double upper_by(double t) const { return exits_by(t, b_, b_); }
    // Returns the probability of leaving through a before time t.
    double lower_by(double t) const { return exits_by(t, -a_, a_); }

    // Returns the probability of staying inside until time t and being at y or above then.
    double inside_above(double t, double y) const {
        y = std::clamp(y, a_, b_);
        const int k_max = terms(t);
        const auto density = [&](double x) {
            double sum = 0;
            for (int k = -k_max; k <= k_max; ++k) {
                const double direct = x - 2 * k * w_;
                const double image = x - 2 * b_ + 2 * k * w_;
                sum += gaussian(direct, t, mu_ * x - mu_ * mu_ * t / 2) -
                       gaussian(image, t, mu_ * x - mu_ * mu_ * t / 2);
            }
            return sum;
        };
        return simpson(density, y, b_);
    }

  private:
    // Returns exp(log_factor) phi_t(y), the exponents added before exp so that neither
    // overflows alone.
    static double gaussian(double y, double t, double log_factor) {
        const double exponent = std::min(700.0, log_factor - y * y / (2 * t));
        return std::exp(exponent) / std::sqrt(2 * std::numbers::pi * t);
    }

    // Returns the image terms each side needed at time t: enough that 2kw is several
    // standard deviations beyond the strip.
    int terms(double t) const { return std::min(200, 3 + int(std::ceil(4 * std::sqrt(t) / w_))); }

    // Returns the probability of leaving through the bound at `at` (distance `distance` from
    // the start) before time t; s = t u^2 puts the integral's points where the rate rises.
    double exits_by(double t, double distance, double at) const {
        if (t <= 0) return 0;
        const int k_max = terms(t);
        const auto rate = [&](double u) {
            const double s = t * u * u;
            if (s <= 0) return 0.0;
            double sum = 0;
            for (int k = -k_max; k <= k_max; ++k) {
                const double y = distance - 2 * k * w_;
                sum += y / s * gaussian(y, s, mu_ * at - mu_ * mu_ * s / 2);
            }
            return sum * 2 * t * u;  // ds = 2 t u du
        };
        return std::clamp(simpson(rate, 0.0, 1.0), 0.0, 1.0);
    }

    template <typename F>
    static double simpson(const F& f, double from, double to) {
        if (to <= from) return 0;
        const double h = (to - from) / kSimpson;
        double sum = f(from) + f(to);
        for (int i = 1; i < kSimpson; ++i) sum += (i % 2 ? 4 : 2) * f(from + i * h);
        return sum * h / 3;
    }

    double a_, b_, w_, mu_;
};

}  // namespace

PairScores pair_scores(const Pentanomial& results, const SprtParams& params) {
    PairScores s;
    double total = 0;
    std::array<double, 5> counts{};
    for (size_t i = 0; i < 5; ++i) {
        s.pairs += double(results.counts[i]);
        counts[i] = results.counts[i] == 0 ? kRegularizer : double(results.counts[i]);
        total += counts[i];
    }
    // The per-pair mean score and its standard deviation.
    double mean = 0, second = 0;
    for (size_t i = 0; i < 5; ++i) {
        const double score = 0.25 * double(i);
        mean += counts[i] / total * score;
        second += counts[i] / total * score * score;
    }
    s.mean = mean;
    s.sigma = std::sqrt(std::max(1e-12, second - mean * mean));
    // The hypotheses' mean scores.
    if (params.model == Model::Logistic) {
        s.theta0 = score_of_elo(params.elo0);
        s.theta1 = score_of_elo(params.elo1);
    } else {
        const double t_per_nelo = std::numbers::sqrt2 / kNeloPerT;  // a pair's t-value per nElo
        s.theta0 = 0.5 + params.elo0 * t_per_nelo * s.sigma;
        s.theta1 = 0.5 + params.elo1 * t_per_nelo * s.sigma;
    }
    return s;
}

UnbiasedElo median_unbiased_elo(const Pentanomial& results, const SprtParams& params, SprtEnd end) {
    const SprtResult sprt_result = sprt(results, params);  // validates counts and parameters
    const PairScores scores = pair_scores(results, params);
    const double n = scores.pairs, mean = scores.mean, sigma = scores.sigma;
    const double theta0 = scores.theta0, theta1 = scores.theta1;
    if (n < 1) throw std::invalid_argument("no game pairs to estimate from");
    const double middle = (theta0 + theta1) / 2;
    const double per_llr = sigma * sigma / (theta1 - theta0);  // score sum per unit of LLR
    // In units of sigma: the bounds, the observed sum and the drift of a mean score.
    const double a = sprt_result.lower * per_llr / sigma;
    const double b = sprt_result.upper * per_llr / sigma;
    const double observed = n * (mean - middle) / sigma;

    // The probability, at a mean score, of an outcome at least as high as the one observed:
    // H1 sooner > H1 later > the maximum reached with a higher sum > ... > H0 later > H0 sooner.
    const auto at_least_observed = [&](double score) {
        const AbsorbedMotion motion(a, b, (score - middle) / sigma);
        switch (end) {
            case SprtEnd::AcceptH1:
                return motion.upper_by(n);
            case SprtEnd::AcceptH0:
                return 1 - motion.lower_by(n);
            case SprtEnd::Truncated:
                break;
        }
        return motion.upper_by(n) + motion.inside_above(n, observed);
    };
    // The score at which that probability is p: it rises with the score.
    const auto solve = [&](double p) {
        double low = 0.001, high = 0.999;
        for (int i = 0; i < 32; ++i) {
            const double mid = (low + high) / 2;
            (at_least_observed(mid) < p ? low : high) = mid;
        }
        return (low + high) / 2;
    };
    UnbiasedElo e;
    e.elo = elo_of_score(solve(0.5));
    e.elo_low = elo_of_score(solve(0.025));
    e.elo_high = elo_of_score(solve(0.975));
    return e;
}

}  // namespace sparring::stats
