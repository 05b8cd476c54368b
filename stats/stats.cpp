// The formulas are fishtest's published ones (stat_util.py, LLRcalc.py and the notes
// "support_MLE_multinomial" and "normalized_elo_practical" by Michel Van den Bergh), written
// from the mathematics.
//
// A sample is one game (trinomial, scores 0, 1/2, 1) or one game pair (pentanomial, pair score
// = the average of its two games: 0, 1/4, 1/2, 3/4, 1). Let N be the number of samples, p_i
// their empirical frequencies, mu the mean sample score (= the mean score per game) and v the
// variance of the sample score. For pairs, v is the variance of the pair average A; the
// per-game variance sigma^2 that fishtest uses is Var(pair total)/2 = Var(2A)/2 = 2v, with
// n = 2N games, so the standard error of mu is sigma/sqrt(n) = sqrt(v/N) either way.
#include "stats/stats.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace sparring::stats {

namespace {

constexpr double Regularizer = 1e-3;                 // replaces a zero count
constexpr int64_t MaxCount = 1'000'000'000'000'000;  // keeps every total far from overflow
constexpr double Z975 = 1.959963984540054;  // the 97.5% quantile of the standard normal law
constexpr double NeloPerT = 800 / std::numbers::ln10;  // nElo divided by the t-value per game
constexpr double EloLimit = 1000;  // largest |elo0|, |elo1| accepted by the logistic model
constexpr double NeloLimit = 200;  // largest |elo0|, |elo1| accepted by the normalized model

// A discrete distribution: sample scores a_i in [0, 1] with probabilities p_i.
struct Distribution {
    std::vector<double> a;
    std::vector<double> p;
};

// The regularized empirical distribution of some counts, and its regularized sample count.
struct Sample {
    Distribution pdf;
    double n = 0;          // number of samples, zero counts counted as 1e-3
    int games_per_sample;  // 1 for games, 2 for pairs
};

// Builds the regularized empirical distribution of counts for equally spaced scores 0..1;
// throws std::invalid_argument for a count that is negative or above 10^15.
template <std::size_t K>
Sample make_sample(const std::array<int64_t, K>& counts, int games_per_sample) {
    Sample sample{{}, 0, games_per_sample};
    std::array<double, K> regularized{};
    for (std::size_t i = 0; i < K; ++i) {
        if (counts[i] < 0) throw std::invalid_argument("result counts must not be negative");
        if (counts[i] > MaxCount)
            throw std::invalid_argument("result counts must not exceed 10^15");
        regularized[i] = counts[i] == 0 ? Regularizer : double(counts[i]);
        sample.n += regularized[i];
    }
    for (std::size_t i = 0; i < K; ++i) {
        sample.pdf.a.push_back(double(i) / double(K - 1));
        sample.pdf.p.push_back(regularized[i] / sample.n);
    }
    return sample;
}

// Returns the trinomial counts in score order: losses, draws, wins.
std::array<int64_t, 3> score_order(const Trinomial& r) {
    return {r.losses, r.draws, r.wins};
}

// Returns the mean of a distribution.
double mean(const Distribution& d) {
    double m = 0;
    for (std::size_t i = 0; i < d.a.size(); ++i) m += d.p[i] * d.a[i];
    return m;
}

// Returns the k-th central moment of a distribution.
double central_moment(const Distribution& d, int k) {
    const double m = mean(d);
    double sum = 0;
    for (std::size_t i = 0; i < d.a.size(); ++i) sum += d.p[i] * std::pow(d.a[i] - m, k);
    return sum;
}

// Returns the standard normal cumulative distribution function.
double normal_cdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

// Returns the denominators d_i = 1 + x v_i at the root x of sum_i p_i v_i / (1 + x v_i) = 0 on
// the interval where every d_i > 0.
std::vector<double> secular_denominators(const std::vector<double>& v,
                                         const std::vector<double>& p) {
    // The left side falls strictly on that interval, from +inf to -inf when the v_i take both
    // signs, so the root is unique. It can lie within rounding distance of a pole when some
    // p_i are tiny, so x is written as the nearer pole plus an offset u that is bisected
    // instead: that keeps the small denominators exact.
    const double v_min = *std::min_element(v.begin(), v.end());
    const double v_max = *std::max_element(v.begin(), v.end());
    if (!(v_min < 0 && v_max > 0))
        throw std::domain_error("no maximum-likelihood distribution meets the hypothesis");
    const double lo = -1 / v_max;
    const double hi = -1 / v_min;
    const auto f = [&](const std::vector<double>& d) {
        double sum = 0;
        for (std::size_t i = 0; i < v.size(); ++i) sum += p[i] * v[i] / d[i];
        return sum;
    };
    // Start from the pole on the side of the midpoint where the root lies: x = pole + dir * u.
    std::vector<double> d(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) d[i] = 1 + (lo + (hi - lo) / 2) * v[i];
    const bool right = f(d) > 0;
    const double pole = right ? hi : lo;
    const double dir = right ? -1 : 1;
    std::vector<double> at_pole(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        at_pole[i] = v[i] == (right ? v_min : v_max) ? 0 : 1 + pole * v[i];

    double u_lo = 0, u_hi = (hi - lo) / 2;
    for (int iteration = 0; iteration < 400; ++iteration) {
        const double u = u_lo + (u_hi - u_lo) / 2;
        if (u <= u_lo || u >= u_hi) break;
        for (std::size_t i = 0; i < v.size(); ++i) d[i] = at_pole[i] + dir * u * v[i];
        // f falls with x; x moves away from the pole as u grows.
        ((f(d) > 0) == (dir > 0) ? u_lo : u_hi) = u;
    }
    const double u = u_lo + (u_hi - u_lo) / 2;
    for (std::size_t i = 0; i < v.size(); ++i) d[i] = at_pole[i] + dir * u * v[i];
    return d;
}

// Returns the distribution p_i / (1 + x v_i) for the root x of the secular equation.
Distribution tilt(const Distribution& empirical, const std::vector<double>& v) {
    const std::vector<double> d = secular_denominators(v, empirical.p);
    Distribution q{empirical.a, {}};
    for (std::size_t i = 0; i < v.size(); ++i) q.p.push_back(empirical.p[i] / d[i]);
    return q;
}

// Returns the maximum-likelihood distribution on the empirical scores with mean s, which the
// Lagrange conditions make q_i = p_i / (1 + x (a_i - s)) with sum q_i (a_i - s) = 0 fixing x.
Distribution mle_with_mean(const Distribution& empirical, double s) {
    std::vector<double> v;
    for (double a : empirical.a) v.push_back(a - s);
    return tilt(empirical, v);
}

// Returns the maximum-likelihood distribution on the empirical scores with t-value
// (mu - ref) / sigma = t.
Distribution mle_with_t_value(const Distribution& empirical, double ref, double t) {
    // The Lagrange conditions give q_i = p_i / (1 + x phi_i) with
    // phi_i = (a_i - ref) - t (sigma^2 + (a_i - mu)^2) / (2 sigma), where mu and sigma are
    // those of q itself, so the equations are iterated to their fixed point from the uniform law.
    const std::size_t k = empirical.a.size();
    Distribution q{empirical.a, std::vector<double>(k, 1.0 / double(k))};
    for (int iteration = 0; iteration < 200; ++iteration) {
        const double mu = mean(q);
        const double sigma = std::sqrt(central_moment(q, 2));
        std::vector<double> phi;
        for (double a : empirical.a)
            phi.push_back((a - ref) - t * (sigma * sigma + (a - mu) * (a - mu)) / (2 * sigma));
        const Distribution next = tilt(empirical, phi);
        double change = 0;
        for (std::size_t i = 0; i < k; ++i) change = std::max(change, std::abs(next.p[i] - q.p[i]));
        q = next;
        if (change < 1e-13) break;
    }
    const double reached = (mean(q) - ref) / std::sqrt(central_moment(q, 2));
    if (!(std::abs(reached - t) <= 1e-9 * std::max(1.0, std::abs(t))))
        throw std::domain_error("the normalized-Elo likelihood maximisation did not converge");
    return q;
}

// Returns N * sum_i p_i ln(q1_i / q0_i): the log-likelihood ratio of the data under two laws.
double log_likelihood_ratio(const Sample& sample, const Distribution& q0, const Distribution& q1) {
    double sum = 0;
    for (std::size_t i = 0; i < q0.p.size(); ++i)
        sum += sample.pdf.p[i] * std::log(q1.p[i] / q0.p[i]);
    return sample.n * sum;
}

// Returns the Elo estimate of a regularized sample.
EloEstimate estimate_sample(const Sample& sample) {
    const Distribution& pdf = sample.pdf;
    const double mu = mean(pdf);
    const double v = central_moment(pdf, 2);
    const double standard_error = std::sqrt(v / sample.n);

    EloEstimate e;
    e.score = mu;
    e.elo = elo_of_score(mu);
    e.elo_low = elo_of_score(mu - Z975 * standard_error);
    e.elo_high = elo_of_score(mu + Z975 * standard_error);
    e.los = normal_cdf((mu - 0.5) / standard_error);

    // The t-value per sample; its estimate has asymptotic variance (delta method on the
    // moments) 1 - t skew + t^2 (excess kurtosis + 2) / 4 over N. nElo is expressed per game:
    // t per pair = t per game * sqrt(2), hence the 1/sqrt(2) for pairs.
    const double t = (mu - 0.5) / std::sqrt(v);
    const double skewness = central_moment(pdf, 3) / std::pow(v, 1.5);
    const double excess_kurtosis = central_moment(pdf, 4) / (v * v) - 3;
    const double var_t = std::max(0.0, 1 - t * skewness + t * t * (excess_kurtosis + 2) / 4);
    const double scale = NeloPerT / std::sqrt(double(sample.games_per_sample));
    const double half_width = scale * Z975 * std::sqrt(var_t / sample.n);
    e.nelo = scale * t;
    e.nelo_low = e.nelo - half_width;
    e.nelo_high = e.nelo + half_width;
    return e;
}

// Returns the SPRT result of a regularized sample.
SprtResult sprt_sample(const Sample& sample, const SprtParams& params) {
    if (std::string error = validate(params); !error.empty()) throw std::invalid_argument(error);
    Distribution q0, q1;
    if (params.model == Model::Logistic) {
        q0 = mle_with_mean(sample.pdf, score_of_elo(params.elo0));
        q1 = mle_with_mean(sample.pdf, score_of_elo(params.elo1));
    } else {
        const double per_sample = std::sqrt(double(sample.games_per_sample)) / NeloPerT;
        q0 = mle_with_t_value(sample.pdf, 0.5, params.elo0 * per_sample);
        q1 = mle_with_t_value(sample.pdf, 0.5, params.elo1 * per_sample);
    }
    SprtResult r;
    r.llr = log_likelihood_ratio(sample, q0, q1);
    r.lower = std::log(params.beta / (1 - params.alpha));
    r.upper = std::log((1 - params.beta) / params.alpha);
    r.state = r.llr < r.lower   ? SprtResult::State::AcceptH0
              : r.llr > r.upper ? SprtResult::State::AcceptH1
                                : SprtResult::State::Continue;
    return r;
}

}  // namespace

double elo_of_score(double x) {
    x = std::clamp(x, Regularizer, 1 - Regularizer);
    return -400 * std::log10(1 / x - 1);
}

double score_of_elo(double elo) {
    return 1 / (1 + std::pow(10.0, -elo / 400));
}

EloEstimate estimate(const Trinomial& results) {
    EloEstimate e = estimate_sample(make_sample(score_order(results), 1));
    e.games = results.losses + results.draws + results.wins;
    return e;
}

EloEstimate estimate(const Pentanomial& results) {
    EloEstimate e = estimate_sample(make_sample(results.counts, 2));
    for (int64_t count : results.counts) e.pairs += count;
    e.games = 2 * e.pairs;
    return e;
}

std::string validate(const SprtParams& params) {
    if (!std::isfinite(params.elo0) || !std::isfinite(params.elo1))
        return "elo0 and elo1 must be finite numbers";
    if (!(params.elo0 < params.elo1)) return "elo0 must be less than elo1";
    const double limit = params.model == Model::Logistic ? EloLimit : NeloLimit;
    if (std::abs(params.elo0) > limit || std::abs(params.elo1) > limit)
        return "elo0 and elo1 must lie within +-" + std::to_string(int(limit)) + " for the " +
               std::string(model_name(params.model)) + " model";
    if (!(params.alpha > 0 && params.alpha < 1)) return "alpha must lie strictly between 0 and 1";
    if (!(params.beta > 0 && params.beta < 1)) return "beta must lie strictly between 0 and 1";
    if (!(params.alpha + params.beta < 1)) return "alpha + beta must be less than 1";
    return "";
}

SprtResult sprt(const Trinomial& results, const SprtParams& params) {
    return sprt_sample(make_sample(score_order(results), 1), params);
}

SprtResult sprt(const Pentanomial& results, const SprtParams& params) {
    return sprt_sample(make_sample(results.counts, 2), params);
}

std::string_view model_name(Model model) {
    return model == Model::Logistic ? "logistic" : "normalized";
}

bool parse_model(std::string_view text, Model* model) {
    if (text == "logistic")
        *model = Model::Logistic;
    else if (text == "normalized")
        *model = Model::Normalized;
    else
        return false;
    return true;
}

std::string_view state_name(SprtResult::State state) {
    switch (state) {
        case SprtResult::State::AcceptH0:
            return "H0";
        case SprtResult::State::AcceptH1:
            return "H1";
        case SprtResult::State::Continue:
            break;
    }
    return "continue";
}

}  // namespace sparring::stats
