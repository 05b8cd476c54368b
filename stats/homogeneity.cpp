#include "stats/homogeneity.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace sparring::stats {

namespace {

// The expected count each merged class of the worker's row must reach (Cochran's rule).
constexpr double kMinExpected = 5;

// Returns the regularized lower incomplete gamma function P(a, x) by its series (x < a + 1).
double gamma_p_series(double a, double x) {
    double term = 1 / a;
    double sum = term;
    for (int n = 1; n < 1000; ++n) {
        term *= x / (a + n);
        sum += term;
        if (std::abs(term) < std::abs(sum) * 1e-16) break;
    }
    return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Returns the regularized upper incomplete gamma function Q(a, x) by its continued fraction
// (x >= a + 1), evaluated with Lentz's method.
double gamma_q_fraction(double a, double x) {
    constexpr double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 1000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::abs(d) < tiny) d = tiny;
        c = b + an / c;
        if (std::abs(c) < tiny) c = tiny;
        d = 1 / d;
        const double delta = d * c;
        h *= delta;
        if (std::abs(delta - 1) < 1e-16) break;
    }
    return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double chi2_upper_tail(double x, int df) {
    if (df < 1) throw std::invalid_argument("chi-squared needs at least one degree of freedom");
    if (x <= 0) return 1;
    const double a = df / 2.0;
    const double half = x / 2;
    return half < a + 1 ? 1 - gamma_p_series(a, half) : gamma_q_fraction(a, half);
}

Homogeneity homogeneity(const Pentanomial& worker, const Pentanomial& rest) {
    double n_worker = 0;
    double n_rest = 0;
    for (size_t i = 0; i < worker.counts.size(); ++i) {
        if (worker.counts[i] < 0 || rest.counts[i] < 0)
            throw std::invalid_argument("pair counts cannot be negative");
        n_worker += double(worker.counts[i]);
        n_rest += double(rest.counts[i]);
    }
    Homogeneity result;
    if (n_worker == 0 || n_rest == 0) return result;
    const double total = n_worker + n_rest;

    // Merged classes: observed pairs of the worker and of the whole run.
    struct Class {
        double worker = 0;
        double all = 0;
    };
    // Both rows' expected counts must be large enough, and the smaller row decides.
    const double smaller = std::min(n_worker, n_rest);
    std::vector<Class> classes;
    Class open;
    for (size_t i = 0; i < worker.counts.size(); ++i) {
        open.worker += double(worker.counts[i]);
        open.all += double(worker.counts[i] + rest.counts[i]);
        if (smaller * open.all / total >= kMinExpected) {
            classes.push_back(open);
            open = {};
        }
    }
    // What is left over joins the last class that reached the threshold.
    if (open.all > 0) {
        if (classes.empty()) return result;
        classes.back().worker += open.worker;
        classes.back().all += open.all;
    }
    if (classes.size() < 2) return result;

    double largest = 0;
    for (const Class& c : classes) {
        const double expected_worker = n_worker * c.all / total;
        const double expected_rest = n_rest * c.all / total;
        const double observed_rest = c.all - c.worker;
        result.chi2 +=
            (c.worker - expected_worker) * (c.worker - expected_worker) / expected_worker +
            (observed_rest - expected_rest) * (observed_rest - expected_rest) / expected_rest;
        const double residual =
            (c.worker - expected_worker) /
            std::sqrt(expected_worker * (1 - n_worker / total) * (1 - c.all / total));
        // Ties go to the higher-scoring class: with two classes (whose residuals are equal
        // and opposite) a positive residual means better results than the rest's.
        if (std::abs(residual) >= std::abs(largest) * (1 - 1e-12)) largest = residual;
    }
    result.df = int(classes.size()) - 1;
    result.p_value = chi2_upper_tail(result.chi2, result.df);
    result.residual = largest;
    return result;
}

double binomial_upper_tail(int64_t k, int64_t n, double p) {
    if (n < 0 || !(p >= 0 && p <= 1))
        throw std::invalid_argument("binomial_upper_tail: needs n >= 0 and p in [0, 1]");
    if (k <= 0) return 1;
    if (k > n) return 0;
    if (p == 0) return 0;
    if (p == 1) return 1;
    // The log of the probability of exactly i successes.
    const auto log_pmf = [&](int64_t i) {
        return std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) -
               std::lgamma(double(n - i) + 1) + double(i) * std::log(p) +
               double(n - i) * std::log1p(-p);
    };
    const double odds = p / (1 - p);
    if (double(k) > double(n) * p) {
        // Above the mean the terms only fall: sum them upwards until they stop counting.
        double term = std::exp(log_pmf(k));
        double sum = 0;
        for (int64_t i = k; i <= n && term > 0; ++i) {
            sum += term;
            if (term < sum * 1e-17) break;
            term *= double(n - i) / double(i + 1) * odds;
        }
        return std::min(1.0, sum);
    }
    // At or below the mean: one minus the lower tail P(X <= k - 1), summed downwards.
    double term = std::exp(log_pmf(k - 1));
    double sum = 0;
    for (int64_t i = k - 1; i >= 0 && term > 0; --i) {
        sum += term;
        if (term < sum * 1e-17) break;
        term *= double(i) / double(n - i + 1) / odds;
    }
    return std::max(0.0, 1 - sum);
}

double excess_loss_p(int64_t losses, int64_t games, int64_t rest_losses, int64_t rest_games) {
    if (games <= 0 || losses <= 0) return 1;
    const double rate = (double(std::max<int64_t>(0, rest_losses)) + 1) /
                        (double(std::max<int64_t>(0, rest_games)) + 2);
    return binomial_upper_tail(losses, games, rate);
}

}  // namespace sparring::stats
