// SPSA arithmetic with fishtest's parametrisation: the gain sequences, the per-pair
// perturbation (seeded, so a step can be recomputed from the run's seed and its index) and the
// update of the parameter values. Parameters are integers to the engines (registry values, UCI
// spin options), so perturbed values are rounded stochastically; theta itself stays real.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sparring::spsa {

constexpr double DefaultREnd = 0.002;

// A tuned parameter: its bounds, start value, and the perturbation size c_end and learning
// rate r_end reached at the last step.
struct Param {
    std::string name;
    double start = 0;
    double min = 0;
    double max = 0;
    double c_end = 0;
    double r_end = DefaultREnd;
};

// The gain-sequence constants shared by all parameters of a run of N game pairs.
struct Schedule {
    int64_t pairs = 0;  // N = games / 2
    double A = 0;       // 0.1 N
    double alpha = 0.602;
    double gamma = 0.101;
};

// The perturbation size c_k and learning rate R_k of one parameter at step k.
struct Gain {
    double c_k = 0;
    double r_k = 0;
};

// The perturbation of one game pair: the plus engine plays `plus`, the minus engine `minus`.
struct Step {
    int64_t k = 0;           // 1-based pair index
    std::vector<int> signs;  // delta_i in {-1, +1}
    std::vector<Gain> gains;
    std::vector<int> plus;   // round(clip(theta + c_k delta))
    std::vector<int> minus;  // round(clip(theta - c_k delta))
};

// Returns a parameter with fishtest's defaults: c_end = (max - min) / 20, r_end = 0.002.
Param make_param(std::string name, double start, double min, double max);

// Returns an empty string when the parameter is usable, else a one-line explanation.
std::string validate(const Param& param);

// Returns the schedule of a run of `pairs` game pairs (pairs >= 1).
Schedule make_schedule(int64_t pairs);

// Returns c_k = c / k^gamma and R_k = a / (A + k)^alpha / c_k^2 with c = c_end N^gamma and
// a = r_end c_end^2 (A + N)^alpha, for k >= 1; at k = N they equal c_end and r_end.
Gain gain(const Param& param, const Schedule& schedule, int64_t k);

// Returns the perturbation of step k, drawn from a generator seeded by (seed, k) alone;
// theta holds one value per parameter. Throws std::invalid_argument for k < 1 or a size
// mismatch.
Step make_step(std::span<const Param> params, std::span<const double> theta,
               const Schedule& schedule, int64_t k, uint64_t seed);

// Applies a pair's result W - L in [-2, 2], from the plus engine's point of view:
// theta_i <- clip(theta_i + R_k c_k (W - L) delta_i). Throws std::invalid_argument for a
// result out of range or a size mismatch.
void apply_result(std::span<const Param> params, const Step& step, int result,
                  std::span<double> theta);

}  // namespace sparring::spsa
