// The self-play training side of the remote commands: the specs of `submit generate` and
// `submit train`, showing generation, training and chain runs, exporting a generation run's
// positions, and the parameters of a training run as a version.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli/client.h"
#include "common/flags.h"

namespace sparring::cli {

// Returns whether a run is a generation, training or chain run.
bool is_training_kind(v1::RunKind kind);
// Returns a run kind's short name for tables: "sprt", "fixed", "tune", "generate", ...
std::string kind_short_name(v1::RunKind kind);

// Writes the spec of `submit generate --version V --games N --nodes K [--random-plies R]
// [--filter LIST] [--seed S]` (book and scheduling flags are the caller's); throws
// UsageError for a bad flag.
void read_generate_spec(const Flags& args, v1::RunSpec* out);
// Writes the spec of `submit train --version V --data RUN,...` (one training run) or
// `submit train --version V --generations G --games N --nodes K` (a chain) with the Texel
// flags; throws UsageError for a bad flag.
void read_train_spec(const Flags& args, v1::RunSpec* out);

// Returns the rows `show` prints for a generation, training or chain run (name, value).
std::vector<std::vector<std::string>> training_run_rows(const v1::RunStatus& run);
// Prints the table of a chain's generations: runs, positions, loss, verification Elo.
void print_generations(const v1::ChainStatus& chain);

// Runs `export positions --run N [--format F] --out FILE`.
int export_positions(const Flags& args);
// Runs `positions import FILE[,FILE...] [--version V] [--name TEXT] [--filter LIST]`: reads
// the files as `sparring train` does and stores their positions on the coordinator as a
// generation run without games, for training runs.
int import_positions(const Flags& args);

// Returns the preset and overrides of the version a finished training run's parameters
// make: its base version's preset, with every parameter that differs from it overridden.
std::pair<std::string, std::map<std::string, int>> version_of_train_run(const v1::RunStatus& run,
                                                                        RemoteClient& client);

}  // namespace sparring::cli
