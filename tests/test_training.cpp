// The Texel trainer's arithmetic: traced coefficients reproduce the engine's evaluation, the
// analytic gradient matches finite differences, K fitting recovers the K that generated the
// results, and training moves a wrong parameter toward the truth within its bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/eval_trace.h"
#include "engine/evaluate.h"
#include "engine/params.h"
#include "training/param_selection.h"
#include "training/texel.h"
#include "training/training_set.h"
#include "training_samples.h"

namespace sparring::training {
namespace {

using samples::draw_results;
using samples::random_game_positions;
using samples::random_params;

// Returns base with both phases of the knight's value set to value.
ParamSet with_knight_value(ParamSet base, int value) {
    EXPECT_TRUE(base.set("KnightValueMg", value));
    EXPECT_TRUE(base.set("KnightValueEg", value));
    return base;
}

TEST(TrainingSet, ReproducesTheEvaluatorExactlyOnRandomGames) {
    const auto positions = random_game_positions(1, 30, 160);
    const TrainingSet set(positions, 2);
    ASSERT_EQ(set.size(), positions.size());
    for (const ParamSet& params : {ParamSet(), random_params(2), random_params(3)}) {
        const Evaluator evaluator(params);
        const std::vector<double> values = real_values(params);
        for (std::size_t i = 0; i < positions.size(); ++i) {
            Board board;
            ASSERT_TRUE(unpack_position(positions[i].position, &board));
            board.set_psq_table(&evaluator.psq_table());
            const int expected = evaluator.evaluate(board);
            ASSERT_EQ(set.evaluate(i, params), expected) << board.fen();
            const int white = board.side() == WHITE ? expected : -expected;
            if (std::abs(white) < EVAL_LIMIT) {
                ASSERT_EQ(std::trunc(set.white_eval(i, values)), white) << board.fen();
            }
        }
    }
}

TEST(TrainingSet, StoresOnlyNonZeroCoefficientsAndKeepsResults) {
    const auto positions = random_game_positions(4, 4, 40);
    const TrainingSet set(positions, 1);
    std::size_t non_zero = 0;
    for (const LabelledPosition& p : positions) {
        Board board;
        ASSERT_TRUE(unpack_position(p.position, &board));
        const EvalTrace trace = trace_evaluation(board);
        for (std::size_t j = 0; j < trace.mg.size(); ++j)
            non_zero += (trace.mg[j] != 0) + (trace.eg[j] != 0);
    }
    EXPECT_EQ(set.coefficient_count(), non_zero);
    for (std::size_t i = 0; i < positions.size(); ++i)
        EXPECT_EQ(set.target(i), white_score(positions[i].result));
}

TEST(TrainingSet, TracingIsTheSameOnAnyNumberOfThreads) {
    const auto positions = random_game_positions(5, 20, 200);
    const TrainingSet one(positions, 1), three(positions, 3);
    const ParamSet params = random_params(6);
    for (std::size_t i = 0; i < positions.size(); ++i)
        ASSERT_EQ(one.evaluate(i, params), three.evaluate(i, params));
}

TEST(TexelLoss, GradientMatchesCentralFiniteDifferences) {
    auto positions = random_game_positions(7, 12, 60);
    const TrainingSet set(positions, 2);
    std::vector<double> values = real_values(ParamSet());
    for (std::size_t p = 0; p < values.size(); ++p) values[p] += 0.37 * std::sin(double(p));
    const double k = 1.3;
    std::vector<double> gradient;
    const double loss = loss_and_gradient(set, values, k, {}, 2, &gradient);
    EXPECT_NEAR(loss, mean_squared_error(set, values, k, 1), 1e-12);

    int non_zero = 0;
    for (std::size_t p = 0; p < values.size(); p += 5) {
        const double h = 0.05;
        std::vector<double> up = values, down = values;
        up[p] += h;
        down[p] -= h;
        const double estimate =
            (mean_squared_error(set, up, k, 1) - mean_squared_error(set, down, k, 1)) / (2 * h);
        EXPECT_NEAR(gradient[p], estimate, 1e-6 * std::abs(estimate) + 1e-11)
            << param_registry()[p].name;
        non_zero += std::abs(gradient[p]) > 1e-7;
    }
    EXPECT_GT(non_zero, 20);
}

TEST(TexelLoss, MiniBatchGradientCoversOnlyItsPositions) {
    const auto positions = random_game_positions(8, 6, 50);
    const TrainingSet whole(positions, 1);
    const std::vector<std::size_t> batch = {3, 17, 40, 41, 99};
    std::vector<LabelledPosition> picked;
    for (std::size_t i : batch) picked.push_back(positions[i]);
    const TrainingSet part(picked, 1);
    const std::vector<double> values = real_values(ParamSet());
    std::vector<double> from_batch, from_part;
    const double batch_loss = loss_and_gradient(whole, values, 1.0, batch, 2, &from_batch);
    const double part_loss = loss_and_gradient(part, values, 1.0, {}, 1, &from_part);
    EXPECT_NEAR(batch_loss, part_loss, 1e-15);
    for (std::size_t p = 0; p < values.size(); ++p) EXPECT_NEAR(from_batch[p], from_part[p], 1e-15);
}

TEST(FitK, RecoversTheKThatGeneratedTheResults) {
    auto positions = random_game_positions(9, 300, 60, 8);
    for (double k0 : {0.7, 1.6}) {
        draw_results(&positions, ParamSet(), k0, 10);
        const TrainingSet set(positions, 2);
        const double k = fit_k(set, real_values(ParamSet()), 2);
        EXPECT_NEAR(k, k0, 0.08 * k0) << "from " << positions.size() << " positions";
    }
}

TEST(FitK, AllDrawsNeedTheFlattestSigmoid) {
    auto positions = random_game_positions(11, 10, 60, 8);
    for (LabelledPosition& p : positions) p.result = Outcome::Draw;
    const TrainingSet set(positions, 1);
    EXPECT_NEAR(fit_k(set, real_values(ParamSet()), 1), K_MIN, 1e-4);
}

TEST(Train, MovesAWrongKnightValueTowardTheTruthAndLowersTheLoss) {
    auto positions = random_game_positions(12, 300, 60, 8);
    const ParamSet truth = with_knight_value(ParamSet(), 320);
    draw_results(&positions, truth, 1.2, 13);
    const TrainingSet set(positions, 2);

    TexelOptions options;
    options.parameters = *parse_param_selection("KnightValue*", nullptr);
    options.k = 1.2;
    options.regularization = 0;
    options.epochs = 150;
    options.learning_rate = 2.0;
    options.threads = 2;
    int reports = 0;
    options.on_epoch = [&](const EpochReport& report) {
        EXPECT_EQ(report.epoch, ++reports);
        return true;
    };
    const ParamSet start = with_knight_value(ParamSet(), 200);
    const TexelResult result = train(set, start, options);

    EXPECT_EQ(reports, 150);
    ASSERT_EQ(result.loss_curve.size(), 150u);
    EXPECT_LT(result.loss_curve.back(), result.initial_loss);
    EXPECT_LT(result.final_loss, result.initial_loss);
    for (std::string_view name : {"KnightValueMg", "KnightValueEg"}) {
        const int value = *result.params.get(name);
        EXPECT_LT(std::abs(value - 320), 60) << name << " ended at " << value << ", from 200";
    }
    EXPECT_EQ(result.params.get("BishopValueMg"), start.get("BishopValueMg"));
    EXPECT_EQ(real_values(result.params).size(), result.values.size());
}

TEST(Train, RegularizationHoldsParametersNearTheirStart) {
    auto positions = random_game_positions(20, 60, 60, 8);
    draw_results(&positions, with_knight_value(ParamSet(), 320), 1.2, 21);
    const TrainingSet set(positions, 2);
    TexelOptions options;
    options.parameters = *parse_param_selection("KnightValue*", nullptr);
    options.k = 1.2;
    options.epochs = 100;
    options.learning_rate = 2.0;
    options.regularization = 0;
    const ParamSet start = with_knight_value(ParamSet(), 200);
    const TexelResult free = train(set, start, options);
    options.regularization = 3e-7;
    const TexelResult held = train(set, start, options);
    for (std::string_view name : {"KnightValueMg", "KnightValueEg"}) {
        EXPECT_GT(*free.params.get(name), *held.params.get(name) + 20) << name;
        EXPECT_GT(*held.params.get(name), 200) << name;
    }
    EXPECT_LT(free.final_loss, held.final_loss);
}

TEST(Train, ResultsDoNotDependOnTheThreadCountAndStopWhenAsked) {
    auto positions = random_game_positions(14, 40, 60, 8);
    draw_results(&positions, ParamSet(), 1.0, 15);
    const TrainingSet set(positions, 1);
    TexelOptions options;
    options.parameters = *parse_param_selection("group:Material,group:Pieces", nullptr);
    options.epochs = 4;
    options.batch_size = 500;
    options.seed = 3;
    options.threads = 1;
    const TexelResult one = train(set, ParamSet(), options);
    options.threads = 3;
    const TexelResult three = train(set, ParamSet(), options);
    EXPECT_EQ(one.k, three.k);
    EXPECT_EQ(one.loss_curve, three.loss_curve);
    EXPECT_EQ(one.values, three.values);

    options.on_epoch = [](const EpochReport& report) { return report.epoch < 2; };
    EXPECT_EQ(train(set, ParamSet(), options).loss_curve.size(), 2u);
}

TEST(Train, KeepsEveryParameterWithinItsBoundsAndRoundsToIntegers) {
    auto positions = random_game_positions(16, 20, 80, 4);
    draw_results(&positions, random_params(17), 1.0, 18);
    const TrainingSet set(positions, 2);
    TexelOptions options;
    options.k = 1.0;
    options.epochs = 5;
    options.learning_rate = 500;
    options.threads = 2;
    const TexelResult result = train(set, ParamSet(), options);
    const auto registry = param_registry();
    int at_bound = 0;
    for (std::size_t p = 0; p < registry.size(); ++p) {
        EXPECT_GE(result.values[p], registry[p].min) << registry[p].name;
        EXPECT_LE(result.values[p], registry[p].max) << registry[p].name;
        EXPECT_EQ(result.params[p], std::lround(result.values[p])) << registry[p].name;
        at_bound += result.values[p] == registry[p].min || result.values[p] == registry[p].max;
    }
    EXPECT_GT(at_bound, 0) << "steps this large must hit some bound";
}

TEST(Train, RejectsAnEmptySetAndBadOptions) {
    const TrainingSet empty(std::vector<LabelledPosition>{}, 1);
    EXPECT_THROW(train(empty, ParamSet(), {}), std::invalid_argument);
    const TrainingSet set(random_game_positions(19, 2, 20), 1);
    TexelOptions options;
    options.learning_rate = 0;
    EXPECT_THROW(train(set, ParamSet(), options), std::invalid_argument);
    options = {};
    options.k = -1;
    EXPECT_THROW(train(set, ParamSet(), options), std::invalid_argument);
    options = {};
    options.regularization = -1;
    EXPECT_THROW(train(set, ParamSet(), options), std::invalid_argument);
    options = {};
    options.parameters = {param_registry().size()};
    EXPECT_THROW(train(set, ParamSet(), options), std::invalid_argument);
}

}  // namespace
}  // namespace sparring::training
