// The Texel method: fit the scaling constant K so that sigmoid(K * eval) predicts the game
// results best, then fit the evaluation parameters to minimise the mean squared error
// between the two by Adam, with the exact gradient of the (linear) evaluation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/params.h"
#include "training/training_set.h"

namespace sparring::training {

inline constexpr double K_MIN = 0.01;  // the range fit_k searches
inline constexpr double K_MAX = 10.0;

struct EpochReport {
    int epoch = 0;       // 1, 2, ...
    double loss = 0;     // over the whole set, after the epoch
    double seconds = 0;  // since training started (K fitting included)
};

struct TexelOptions {
    std::vector<std::size_t> parameters;  // registry indices to fit; empty: all of them
    std::optional<double> k;              // the scaling constant; nullopt: fit_k chooses it
    int epochs = 100;
    double learning_rate = 1.0;  // Adam's step size, in parameter units (centipawns)
    std::size_t batch_size = 0;  // positions per step; 0: the whole set (one step an epoch)
    // Weight of the penalty sum (value - base value)^2 over the fitted parameters, added to
    // the mean squared error while fitting: it holds parameters the data barely determines
    // near where they started (unheld, Adam drifts them far, which costs Elo; see
    // BENCHMARKS.md). 0 is the plain Texel method. Losses are reported without it.
    double regularization = 1e-7;
    std::uint64_t seed = 1;  // shuffles the positions into mini-batches
    int threads = 1;         // the results do not depend on it
    // Optional; called after each epoch; returning false ends training there.
    std::function<bool(const EpochReport&)> on_epoch;
};

struct TexelResult {
    double k = 0;
    double initial_loss = 0;         // with the base parameters
    std::vector<double> loss_curve;  // after each epoch, with the real-valued parameters
    std::vector<double> values;      // the real-valued parameters at the end
    ParamSet params;                 // values rounded to integers, within every bound
    double final_loss = 0;           // with params
};

// Returns the predicted score 1 / (1 + 10^(-k * eval / 400)) of a white evaluation.
double texel_sigmoid(double eval, double k);
// Returns the values of params as reals, in registry order.
std::vector<double> real_values(const ParamSet& params);
// Returns the mean squared error between texel_sigmoid(white_eval) and the results.
double mean_squared_error(const TrainingSet& set, std::span<const double> values, double k,
                          int threads);
// Returns the mean squared error over the positions of batch (all when batch is empty) and
// sets *gradient to its exact derivative by every registry parameter.
double loss_and_gradient(const TrainingSet& set, std::span<const double> values, double k,
                         std::span<const std::size_t> batch, int threads,
                         std::vector<double>* gradient);
// Returns the K in [K_MIN, K_MAX] that minimises the mean squared error for the values.
double fit_k(const TrainingSet& set, std::span<const double> values, int threads);
// Fits the selected parameters of base to the set; throws std::invalid_argument for an
// empty set or options out of range.
TexelResult train(const TrainingSet& set, const ParamSet& base, const TexelOptions& options);

}  // namespace sparring::training
