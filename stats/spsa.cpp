#include "stats/spsa.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "common/random.h"

namespace sparring::spsa {

namespace {

// Returns a uniform double in [0, 1) from the top 53 bits of a draw; unlike the standard
// distributions this is the same on every standard library.
double uniform01(std::mt19937_64& rng) {
    return double(rng() >> 11) * 0x1.0p-53;
}

// Rounds x down or up with probabilities that make the expected result x.
int round_stochastic(double x, std::mt19937_64& rng) {
    const double floor = std::floor(x);
    return int(floor) + (uniform01(rng) < x - floor ? 1 : 0);
}

// Returns x clipped to the parameter's bounds.
double clip(const Param& param, double x) {
    return std::clamp(x, param.min, param.max);
}

}  // namespace

Param make_param(std::string name, double start, double min, double max) {
    return Param{std::move(name), start, min, max, (max - min) / 20, DefaultREnd};
}

std::string validate(const Param& p) {
    const std::string what = "SPSA parameter '" + p.name + "': ";
    if (p.name.empty()) return "SPSA parameter without a name";
    for (double x : {p.start, p.min, p.max, p.c_end, p.r_end})
        if (!std::isfinite(x)) return what + "values must be finite";
    if (!(p.min < p.max)) return what + "min must be less than max";
    if (p.min != std::floor(p.min) || p.max != std::floor(p.max))
        return what + "min and max must be integers";
    if (p.start < p.min || p.start > p.max) return what + "start must lie within [min, max]";
    if (!(p.c_end > 0)) return what + "c_end must be positive";
    if (!(p.r_end > 0)) return what + "r_end must be positive";
    return "";
}

Schedule make_schedule(int64_t pairs) {
    if (pairs < 1) throw std::invalid_argument("an SPSA run needs at least one game pair");
    Schedule s;
    s.pairs = pairs;
    s.A = 0.1 * double(pairs);
    return s;
}

Gain gain(const Param& param, const Schedule& schedule, int64_t k) {
    if (k < 1) throw std::invalid_argument("SPSA steps are numbered from 1");
    const double n = double(schedule.pairs);
    const double c = param.c_end * std::pow(n, schedule.gamma);
    const double a =
        param.r_end * param.c_end * param.c_end * std::pow(schedule.A + n, schedule.alpha);
    Gain g;
    g.c_k = c / std::pow(double(k), schedule.gamma);
    g.r_k = a / std::pow(schedule.A + double(k), schedule.alpha) / (g.c_k * g.c_k);
    return g;
}

Step make_step(std::span<const Param> params, std::span<const double> theta,
               const Schedule& schedule, int64_t k, uint64_t seed) {
    if (params.size() != theta.size())
        throw std::invalid_argument("SPSA step: one theta value per parameter is needed");
    std::mt19937_64 rng(splitmix64(seed ^ splitmix64(uint64_t(k))));
    Step step;
    step.k = k;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Gain g = gain(params[i], schedule, k);
        const int sign = (rng() >> 63) != 0 ? 1 : -1;
        step.signs.push_back(sign);
        step.gains.push_back(g);
        step.plus.push_back(round_stochastic(clip(params[i], theta[i] + g.c_k * sign), rng));
        step.minus.push_back(round_stochastic(clip(params[i], theta[i] - g.c_k * sign), rng));
    }
    return step;
}

void apply_result(std::span<const Param> params, const Step& step, int result,
                  std::span<double> theta) {
    if (result < -2 || result > 2)
        throw std::invalid_argument("an SPSA pair result W - L must lie in [-2, 2]");
    if (params.size() != theta.size() || params.size() != step.signs.size())
        throw std::invalid_argument("SPSA update: parameters, theta and step differ in size");
    for (std::size_t i = 0; i < params.size(); ++i) {
        const Gain& g = step.gains[i];
        theta[i] = clip(params[i], theta[i] + g.r_k * g.c_k * result * step.signs[i]);
    }
}

}  // namespace sparring::spsa
