#include "training/texel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "engine/eval_trace.h"
#include "training/parallel.h"

namespace sparring::training {

namespace {

constexpr std::size_t LOSS_CHUNK = 4096;
constexpr int K_GRID_POINTS = 40;  // log-spaced scan before the golden-section search
constexpr double K_TOLERANCE = 1e-6;
constexpr double ADAM_BETA1 = 0.9;
constexpr double ADAM_BETA2 = 0.999;
constexpr double ADAM_EPSILON = 1e-8;

// Returns the mean squared error of precomputed white evaluations for a K.
double error_of_evaluations(const TrainingSet& set, std::span<const double> evals, double k,
                            int threads) {
    std::vector<double> partial(chunk_count(evals.size(), LOSS_CHUNK), 0.0);
    for_each_chunk(evals.size(), LOSS_CHUNK, threads,
                   [&](std::size_t chunk, std::size_t begin, std::size_t end) {
                       double sum = 0;
                       for (std::size_t i = begin; i < end; ++i) {
                           const double d = texel_sigmoid(evals[i], k) - set.target(i);
                           sum += d * d;
                       }
                       partial[chunk] = sum;
                   });
    return std::accumulate(partial.begin(), partial.end(), 0.0) / evals.size();
}

// Adam's moment estimates for the parameters being fitted.
class Adam {
  public:
    Adam(std::size_t size, double learning_rate)
        : learning_rate_(learning_rate), m_(size, 0.0), v_(size, 0.0) {}

    // Moves values[parameters[j]] one step against gradient, clipped to its bounds.
    void step(std::span<const std::size_t> parameters, std::span<const double> gradient,
              std::span<double> values) {
        ++t_;
        const double m_correction = 1 - std::pow(ADAM_BETA1, t_);
        const double v_correction = 1 - std::pow(ADAM_BETA2, t_);
        const auto registry = param_registry();
        for (std::size_t j = 0; j < parameters.size(); ++j) {
            const std::size_t p = parameters[j];
            const double g = gradient[p];
            m_[j] = ADAM_BETA1 * m_[j] + (1 - ADAM_BETA1) * g;
            v_[j] = ADAM_BETA2 * v_[j] + (1 - ADAM_BETA2) * g * g;
            const double update = learning_rate_ * (m_[j] / m_correction) /
                                  (std::sqrt(v_[j] / v_correction) + ADAM_EPSILON);
            values[p] =
                std::clamp(values[p] - update, double(registry[p].min), double(registry[p].max));
        }
    }

  private:
    double learning_rate_;
    std::vector<double> m_;
    std::vector<double> v_;
    int t_ = 0;
};

// Adds the gradient of weight * sum (value - start)^2 over the parameters to gradient.
void add_penalty_gradient(std::span<const std::size_t> parameters, std::span<const double> values,
                          std::span<const double> start, double weight,
                          std::span<double> gradient) {
    for (std::size_t p : parameters) gradient[p] += 2 * weight * (values[p] - start[p]);
}

// Returns the values rounded to the nearest integers as a parameter set.
ParamSet round_values(std::span<const double> values) {
    ParamSet params;
    const auto registry = param_registry();
    for (std::size_t p = 0; p < registry.size(); ++p) {
        const auto value = static_cast<int>(std::lround(values[p]));
        params.set(registry[p].name, std::clamp(value, registry[p].min, registry[p].max));
    }
    return params;
}

// Throws std::invalid_argument when the set or the options cannot be trained with.
void check_options(const TrainingSet& set, const TexelOptions& options) {
    if (set.size() == 0) throw std::invalid_argument("no positions to train on");
    if (options.epochs < 0) throw std::invalid_argument("the number of epochs is negative");
    if (!(options.learning_rate > 0))
        throw std::invalid_argument("the learning rate must be positive");
    if (options.k && !(*options.k > 0)) throw std::invalid_argument("K must be positive");
    if (!(options.regularization >= 0))
        throw std::invalid_argument("the regularization weight is negative");
    for (std::size_t p : options.parameters)
        if (p >= param_registry().size())
            throw std::invalid_argument("parameter index " + std::to_string(p) +
                                        " is outside the registry");
}

}  // namespace

double texel_sigmoid(double eval, double k) {
    return 1.0 / (1.0 + std::pow(10.0, -k * eval / 400.0));
}

std::vector<double> real_values(const ParamSet& params) {
    return {params.values().begin(), params.values().end()};
}

double mean_squared_error(const TrainingSet& set, std::span<const double> values, double k,
                          int threads) {
    std::vector<double> evals(set.size());
    for_each_chunk(set.size(), LOSS_CHUNK, threads,
                   [&](std::size_t, std::size_t begin, std::size_t end) {
                       for (std::size_t i = begin; i < end; ++i)
                           evals[i] = set.white_eval(i, values);
                   });
    return error_of_evaluations(set, evals, k, threads);
}

double loss_and_gradient(const TrainingSet& set, std::span<const double> values, double k,
                         std::span<const std::size_t> batch, int threads,
                         std::vector<double>* gradient) {
    const std::size_t count = batch.empty() ? set.size() : batch.size();
    const std::size_t chunks = chunk_count(count, LOSS_CHUNK);
    std::vector<std::vector<double>> partial_gradient(chunks);
    std::vector<double> partial_loss(chunks, 0.0);
    const double slope = std::log(10.0) * k / 400.0;  // d sigmoid / d eval = slope * s * (1 - s)
    for_each_chunk(count, LOSS_CHUNK, threads,
                   [&](std::size_t chunk, std::size_t begin, std::size_t end) {
                       std::vector<double>& g = partial_gradient[chunk];
                       g.assign(values.size(), 0.0);
                       double loss = 0;
                       for (std::size_t j = begin; j < end; ++j) {
                           const std::size_t i = batch.empty() ? j : batch[j];
                           const double eval = set.white_eval(i, values);
                           const double s = texel_sigmoid(eval, k);
                           const double d = s - set.target(i);
                           loss += d * d;
                           if (std::abs(eval) < EVAL_LIMIT)
                               set.add_gradient(i, 2 * d * slope * s * (1 - s), g);
                       }
                       partial_loss[chunk] = loss;
                   });
    gradient->assign(values.size(), 0.0);
    for (const std::vector<double>& g : partial_gradient)
        for (std::size_t p = 0; p < g.size(); ++p) (*gradient)[p] += g[p];
    for (double& g : *gradient) g /= count;
    return std::accumulate(partial_loss.begin(), partial_loss.end(), 0.0) / count;
}

double fit_k(const TrainingSet& set, std::span<const double> values, int threads) {
    if (set.size() == 0) throw std::invalid_argument("no positions to fit K on");
    std::vector<double> evals(set.size());
    for_each_chunk(set.size(), LOSS_CHUNK, threads,
                   [&](std::size_t, std::size_t begin, std::size_t end) {
                       for (std::size_t i = begin; i < end; ++i)
                           evals[i] = set.white_eval(i, values);
                   });
    auto error = [&](double k) { return error_of_evaluations(set, evals, k, threads); };
    // A log-spaced scan finds the basin; golden-section search then narrows it down.
    const double ratio = std::pow(K_MAX / K_MIN, 1.0 / (K_GRID_POINTS - 1));
    int best = 0;
    double best_error = error(K_MIN);
    for (int i = 1; i < K_GRID_POINTS; ++i) {
        const double e = error(K_MIN * std::pow(ratio, i));
        if (e < best_error) best = i, best_error = e;
    }
    double lo = K_MIN * std::pow(ratio, std::max(best - 1, 0));
    double hi = K_MIN * std::pow(ratio, std::min(best + 1, K_GRID_POINTS - 1));
    const double golden = (std::sqrt(5.0) - 1) / 2;
    double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    double error_a = error(a), error_b = error(b);
    while (hi - lo > K_TOLERANCE) {
        if (error_a < error_b) {
            hi = b, b = a, error_b = error_a;
            a = hi - golden * (hi - lo), error_a = error(a);
        } else {
            lo = a, a = b, error_a = error_b;
            b = lo + golden * (hi - lo), error_b = error(b);
        }
    }
    return (lo + hi) / 2;
}

TexelResult train(const TrainingSet& set, const ParamSet& base, const TexelOptions& options) {
    check_options(set, options);
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::size_t> parameters = options.parameters;
    if (parameters.empty()) {
        parameters.resize(param_registry().size());
        std::iota(parameters.begin(), parameters.end(), std::size_t{0});
    }

    TexelResult result;
    result.values = real_values(base);
    const std::vector<double> start_values = result.values;
    result.k = options.k ? *options.k : fit_k(set, result.values, options.threads);
    result.initial_loss = mean_squared_error(set, result.values, result.k, options.threads);

    Adam adam(parameters.size(), options.learning_rate);
    std::vector<double> gradient;
    std::vector<std::size_t> order;
    if (options.batch_size) {
        order.resize(set.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
    }
    std::mt19937_64 rng(options.seed);
    for (int epoch = 1; epoch <= options.epochs; ++epoch) {
        if (options.batch_size) {
            std::shuffle(order.begin(), order.end(), rng);
            for (std::size_t start = 0; start < order.size(); start += options.batch_size) {
                const std::size_t size = std::min(options.batch_size, order.size() - start);
                loss_and_gradient(set, result.values, result.k,
                                  std::span(order).subspan(start, size), options.threads,
                                  &gradient);
                add_penalty_gradient(parameters, result.values, start_values,
                                     options.regularization, gradient);
                adam.step(parameters, gradient, result.values);
            }
        } else {
            loss_and_gradient(set, result.values, result.k, {}, options.threads, &gradient);
            add_penalty_gradient(parameters, result.values, start_values, options.regularization,
                                 gradient);
            adam.step(parameters, gradient, result.values);
        }
        const double loss = mean_squared_error(set, result.values, result.k, options.threads);
        result.loss_curve.push_back(loss);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - started;
        if (options.on_epoch && !options.on_epoch({epoch, loss, elapsed.count()})) break;
    }
    result.params = round_values(result.values);
    result.final_loss =
        mean_squared_error(set, real_values(result.params), result.k, options.threads);
    return result;
}

}  // namespace sparring::training
