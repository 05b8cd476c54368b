// Labelled positions traced once into what the Texel loss needs: for every position the
// non-zero coefficients of the parameters in its middle- and end-game sums, its phase, side
// to move and game result. The evaluation is linear in the parameters, so these give the
// evaluation for any parameter values and its exact gradient.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/params.h"
#include "engine/types.h"
#include "training/labelled_position.h"

namespace sparring::training {

class TrainingSet {
  public:
    // Traces every position on threads threads; throws std::invalid_argument naming a
    // position that does not unpack.
    TrainingSet(std::span<const LabelledPosition> positions, int threads);

    std::size_t size() const { return result_.size(); }
    // Returns white's score in the game of position i: 0, 0.5 or 1.
    double target(std::size_t i) const { return white_score(result_[i]); }
    // Returns the side to move's evaluation of position i, exactly as Evaluator gives it.
    int evaluate(std::size_t i, const ParamSet& params) const;
    // Returns white's evaluation of position i for real parameter values (one per registry
    // parameter): the engine's formula without integer rounding, clamped to +-EVAL_LIMIT.
    double white_eval(std::size_t i, std::span<const double> values) const;
    // Adds scale times the derivative of white's unclamped evaluation of position i by each
    // parameter to gradient.
    void add_gradient(std::size_t i, double scale, std::span<double> gradient) const;
    // Returns how many coefficients are stored for all positions together.
    std::size_t coefficient_count() const { return coefficients_.size(); }

  private:
    // A parameter's non-zero coefficient in one position (at most 32 pieces contribute).
    struct Coefficient {
        std::uint16_t param;
        std::int16_t count;
    };

    // Per position i: coefficients_[begin_[i], begin_[i] + mg_count_[i]) are its middle-game
    // coefficients, the rest up to begin_[i + 1] its end-game ones.
    std::vector<Coefficient> coefficients_;
    std::vector<std::uint64_t> begin_;
    std::vector<std::uint16_t> mg_count_;
    std::vector<std::uint8_t> phase_;
    std::vector<Color> side_;
    std::vector<Outcome> result_;
};

}  // namespace sparring::training
