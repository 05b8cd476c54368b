// `sparring train`: fits the evaluation parameters to labelled positions by the Texel method
// and writes the tuned parameter set as JSON (usable as `--engine builtin=FILE.json`).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/training_flags.h"
#include "engine/params.h"
#include "training/param_selection.h"
#include "training/texel.h"
#include "training/training_set.h"

namespace sparring::cli {

namespace {

constexpr int SHOWN_CHANGES = 10;

// The flags of `sparring train`, and its arguments.
struct TrainCommandFlags {
    std::optional<std::string> data, params, filter, out;
    std::optional<int64_t> skip_plies, threads;
    std::optional<double> l2;
    std::string preset, select, k;
    int64_t epochs = 0, batch = 0, seed = 0;
    double lr = 0;
    CLI::Option *data_option = nullptr, *preset_option = nullptr, *out_option = nullptr;
    std::vector<std::string> arguments;

    // Declares the flags on app.
    explicit TrainCommandFlags(CLI::App& app);
};

TrainCommandFlags::TrainCommandFlags(CLI::App& app) {
    data_option = add_list(app, "data", data, "FILE[,FILE...]",
                           "FEN [1.0], EPD with c9, FEN | score | result lines, or .pgn games");
    add_flag(app, "params", params, "FILE", "parameter set (JSON) to start from");
    preset_option = add_flag(app, "preset", preset, "NAME", "preset to start from", "default");
    add_list(app, "select", select, "LIST", "parameters to fit: names, group:GROUP, PREFIX* or all",
             "all");
    add_flag(app, "epochs", epochs, "N", "passes over the data", "100", 1, 1'000'000);
    add_flag(app, "lr", lr, "X", "Adam step size in centipawns", "1");
    add_flag(app, "batch", batch, "N", "positions per step; 0: all, one step an epoch", "0");
    add_flag(app, "l2", l2, "X", "penalty weight on (value - start)^2; 0: none (default 1e-7)");
    add_flag(app, "k", k, "K|auto", "the sigmoid's scaling constant, or auto to fit it", "auto");
    add_list(app, "filter", filter, "LIST",
             "drop positions: check,tactical,mate, all or none (default all)");
    add_flag(app, "skip-plies", skip_plies, "N",
             "PGN data: opening plies of each game to skip (default 8)");
    add_flag(app, "seed", seed, "N", "seed of the mini-batch order", "1");
    add_flag(app, "threads", threads, "N", "threads (default: all hardware threads)");
    out_option =
        add_flag(app, "out", out, "FILE", "where to write the tuned parameter set (required)");
    add_arguments(app, arguments);
}

// Reads the training options from the flags.
training::TexelOptions texel_options(const TrainCommandFlags& args) {
    training::TexelOptions options;
    std::string error;
    const auto selection = training::parse_param_selection(args.select, &error);
    if (!selection) throw UsageError("--select: " + error);
    options.parameters = *selection;
    options.epochs = static_cast<int>(args.epochs);
    options.learning_rate = args.lr;
    if (options.learning_rate <= 0) throw UsageError("--lr must be positive");
    if (args.batch < 0) throw UsageError("--batch must not be negative");
    options.batch_size = static_cast<std::size_t>(args.batch);
    options.regularization = args.l2.value_or(options.regularization);
    if (options.regularization < 0) throw UsageError("--l2 must not be negative");
    if (args.k != "auto") {
        options.k = real_value("k", args.k);
        if (*options.k <= 0) throw UsageError("--k must be positive or auto");
    }
    if (args.seed < 0) throw UsageError("--seed must not be negative");
    options.seed = static_cast<std::uint64_t>(args.seed);
    options.threads = threads_flag(args.threads);
    return options;
}

// Returns seconds since start, with one decimal.
std::string seconds_since(std::chrono::steady_clock::time_point start) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    char text[32];
    std::snprintf(text, sizeof text, "%.1fs", elapsed.count());
    return text;
}

// Prints how many parameters changed and the largest changes.
void print_changes(const ParamSet& before, const ParamSet& after) {
    const auto registry = param_registry();
    std::vector<std::size_t> changed;
    for (std::size_t p = 0; p < registry.size(); ++p)
        if (before[p] != after[p]) changed.push_back(p);
    std::stable_sort(changed.begin(), changed.end(), [&](std::size_t a, std::size_t b) {
        return std::abs(after[a] - before[a]) > std::abs(after[b] - before[b]);
    });
    std::cout << changed.size() << " of " << registry.size() << " parameters changed";
    if (!changed.empty()) std::cout << "; largest:";
    for (std::size_t i = 0; i < changed.size() && i < SHOWN_CHANGES; ++i) {
        const std::size_t p = changed[i];
        std::cout << (i ? ", " : " ") << registry[p].name << " " << before[p] << " -> " << after[p];
    }
    std::cout << "\n";
}

// Runs `sparring train`.
int run_train(const TrainCommandFlags& args) {
    if (!args.arguments.empty())
        throw UsageError("unexpected argument '" + args.arguments.front() + "'");
    require(args.out_option);
    const std::string& out_path = *args.out;
    require(args.data_option);
    const std::string& data = *args.data;
    const ParamSet base = base_params(args.params, args.preset, given(args.preset_option));
    training::TexelOptions options = texel_options(args);
    const PositionInput input =
        position_input_flags(args.filter, "all", args.skip_plies, args.threads);
    std::ofstream out(out_path);
    if (!out) throw std::runtime_error("cannot write '" + out_path + "'");

    const auto start = std::chrono::steady_clock::now();
    std::vector<training::LabelledPosition> positions = read_position_files(data, input);
    if (positions.empty()) throw std::runtime_error("no positions left to train on");
    const training::TrainingSet set(positions, options.threads);
    positions = {};
    std::cout << "traced " << set.size() << " positions (" << set.coefficient_count()
              << " coefficients) in " << seconds_since(start) << "\n";

    options.on_epoch = [&](const training::EpochReport& report) {
        char line[96];
        std::snprintf(line, sizeof line, "epoch %4d/%d  loss %.7f  elapsed %.1fs\n", report.epoch,
                      options.epochs, report.loss, report.seconds);
        std::cout << line << std::flush;
        return true;
    };
    const bool fit = !options.k;
    if (fit) options.k = training::fit_k(set, training::real_values(base), options.threads);
    char k_line[48];
    std::snprintf(k_line, sizeof k_line, "K %.4f%s\n", *options.k, fit ? " (fitted)" : "");
    std::cout << k_line << std::flush;
    const training::TexelResult result = training::train(set, base, options);

    char summary[160];
    std::snprintf(summary, sizeof summary,
                  "%zu parameters fitted; loss %.7f -> %.7f (rounded parameters)\n",
                  options.parameters.size(), result.initial_loss, result.final_loss);
    std::cout << summary;
    print_changes(base, result.params);
    out << result.params.to_json() << "\n";
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + out_path + "'");
    std::cout << "wrote " << out_path << "\n";
    return 0;
}

}  // namespace

// Describes `sparring train` for the command table.
Command train_command() {
    return {
        "train", "fit the evaluation parameters to labelled positions (Texel method, Adam)",
        "--data FILE[,FILE...] --out FILE [--params FILE | --preset NAME] [--select LIST] "
        "[--epochs N] [--lr X] [--batch N] [--l2 X] [--k K|auto] [--filter LIST] [--skip-plies N] "
        "[--seed N] [--threads N]",
        declare_flags<TrainCommandFlags, run_train>};
}

}  // namespace sparring::cli
