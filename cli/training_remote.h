// The self-play training side of the remote commands: the specs of `submit generate` and
// `submit train`, showing generation, training and chain runs, exporting a generation run's
// positions, and the parameters of a training run as a version.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/client.h"
#include "cli/export_selection.h"
#include "cli/spec_flags.h"

namespace sparring::cli {

// The flags of `sparring export`, and its arguments.
struct ExportFlags {
    std::optional<std::string> out;
    std::optional<int64_t> run;
    std::string format;
    CLI::Option* run_option = nullptr;
    CLI::Option* format_option = nullptr;
    ExportSelection selection;  // games across runs (export_selection.h)
    RemoteFlags remote;
    std::vector<std::string> arguments;

    // Declares the flags on app.
    explicit ExportFlags(CLI::App& app);
};

// The flags of `sparring positions`, and its arguments.
struct PositionsFlags {
    std::optional<std::string> out, filter, in, book, params, name;
    std::optional<int64_t> threads, skip_plies, games;
    std::string format, preset, version;
    int64_t nodes = 0, random_plies = 0, seed = 0, chunk_positions = 0;
    CLI::Option *out_option = nullptr, *format_option = nullptr, *in_option = nullptr,
                *games_option = nullptr, *preset_option = nullptr;
    std::vector<CLI::Option*> convert_only, generate_only, import_only;
    RemoteFlags remote;
    std::vector<std::string> arguments;

    // Declares the flags on app.
    explicit PositionsFlags(CLI::App& app);
};

// The rows `show` prints of a run (name, value).
using Rows = std::vector<std::vector<std::string>>;

// Writes the spec of `submit generate --version V --games N --nodes K [--random-plies R]
// [--filter LIST] [--seed S]` (kind, book and scheduling flags are the caller's); throws
// UsageError for a bad flag.
void read_generate_spec(const SubmitFlags& args, v1::RunSpec* out);
// Writes the spec of `submit train --version V --data RUN,...` (one training run) or
// `submit train --version V --generations G --games N --nodes K` (a chain, its spec holding
// a ChainSpec) with the Texel flags, the kind left to the caller; throws UsageError for a bad
// flag.
void read_train_spec(const SubmitFlags& args, v1::RunSpec* out);

// Adds the rows of a generation run after its id.
void add_generate_rows(const v1::RunStatus& run, Rows& rows);
// Adds the rows of a training run after its id.
void add_train_rows(const v1::RunStatus& run, Rows& rows);
// Adds the rows of a chain after its id.
void add_chain_rows(const v1::RunStatus& run, Rows& rows);
// Prints a generation, training or chain run for `show`: its id, the rows of its kind, its
// state, chain, description and times.
void print_training_run(const v1::RunStatus& run,
                        void (*add_kind_rows)(const v1::RunStatus& run, Rows& rows));
// Prints the table of a chain's generations: runs, positions, loss, verification Elo.
void print_generations(const v1::ChainStatus& chain);

// Runs `export positions --run N [--format F] --out FILE`.
int export_positions(const ExportFlags& args);
// Runs `positions import FILE[,FILE...] [--version V] [--name TEXT] [--filter LIST]`: reads
// the files as `sparring train` does and stores their positions on the coordinator as a
// generation run without games, for training runs.
int import_positions(const PositionsFlags& args);

}  // namespace sparring::cli
