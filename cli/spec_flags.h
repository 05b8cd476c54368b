// The flags of `submit`, which the run kinds read, and the readers of those several kinds
// share: time control, book, SPRT and games.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/client.h"
#include "common/flags.h"

namespace sparring::cli {

// The flags of `sparring submit`, and its arguments.
struct SubmitFlags : CommonFlags {
    std::optional<std::string> kind, params, params_file, book, book_format, draw, resign,
        description, version, name, then_tc, fault_bound;
    std::optional<int64_t> games, verify_games, verify_seed, seed, reference_nps, pairs_per_thread,
        then_games, like;
    std::optional<double> c_end, r_end, average, lr, l2, then_elo0, then_elo1;
    std::vector<std::string> param;
    std::vector<int64_t> data;
    bool verify = false, verify_fixed = false;
    double elo0 = 0, elo1 = 0, alpha = 0, beta = 0;
    std::string model, tc, book_order, filter, k, select, then_on;
    int64_t book_plies = 0, maxplies = 0, engine_threads = 0, priority = 0, throughput = 0,
            nodes = 0, random_plies = 0, generations = 0, epochs = 0, batch = 0, threads = 0;
    // The flags `has` checks of those with a default read.
    CLI::Option *tc_option = nullptr, *book_plies_option = nullptr, *book_order_option = nullptr,
                *priority_option = nullptr, *throughput_option = nullptr,
                *random_plies_option = nullptr, *maxplies_option = nullptr,
                *engine_threads_option = nullptr, *generations_option = nullptr,
                *data_option = nullptr, *then_on_option = nullptr;
    std::vector<CLI::Option*> sprt_options;          // --elo0 --elo1 --alpha --beta --model
    std::vector<CLI::Option*> tune_options;          // --params ... --verify-seed
    std::vector<CLI::Option*> training_options;      // of generation, training and chain runs
    std::vector<CLI::Option*> not_training_options;  // of the runs that play versions only

    // Declares the flags on app.
    explicit SubmitFlags(CLI::App& app);

  private:
    void declare_tune_flags(CLI::App& app, CLI::Option* kind_option);
    void declare_game_flags(CLI::App& app);
    void declare_training_flags(CLI::App& app);
    void declare_follow_up_flags(CLI::App& app);
};

// Writes the time control of text, the value of --flag; throws UsageError when it is invalid.
void read_time_control(const std::string& text, v1::TimeControl* out, std::string_view flag = "tc");
// Reads the book file (default: the shipped book) and its order into the request.
void read_book(const SubmitFlags& args, v1::Book* out);

// Writes to stderr the warnings the coordinator gives of a run just submitted (RunStatus.warnings:
// games that need more openings than the book has at a node or depth limit, whose pairs past the
// book's end would replay games already played), each as "warning: ..." on a line.
void print_warnings(const v1::RunStatus& run);
// Returns whether any SPRT flag was given.
bool has_sprt_flags(const SubmitFlags& args);
// Writes the SPRT of --elo0 --elo1 --alpha --beta --model (normalized [0, 5], 5% errors by
// default); throws UsageError when they are invalid.
void read_sprt(const SubmitFlags& args, v1::Sprt* out);
// Returns --games (default_games when not given); throws UsageError when it is not an even
// number in 2..10^9.
int64_t read_games(const SubmitFlags& args, int64_t default_games);

}  // namespace sparring::cli
