// What `sparring train` and `sparring positions` share: the starting parameter set, the
// --threads flag, and reading labelled positions from the files named on the command line
// (text formats, or PGN games) through the quiet-position filters, with a report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/flags.h"
#include "engine/params.h"
#include "training/labelled_position.h"
#include "training/position_filter.h"

namespace sparring::cli {

// How position files are read: which filters apply, and for PGN games how many opening plies
// are skipped.
struct PositionInput {
    training::FilterOptions filters;
    int skip_plies = 8;
    int threads = 1;
};

// Returns the parameter set of --params FILE or --preset NAME (default: the default preset);
// preset_given says whether --preset was given.
ParamSet base_params(const std::optional<std::string>& params, const std::string& preset,
                     bool preset_given);
// Returns --threads, by default the number of hardware threads; throws UsageError when out
// of range.
int threads_flag(std::optional<int64_t> threads);
// Returns --filter (fallback when absent) and --skip-plies with --threads; throws UsageError
// for a bad value.
PositionInput position_input_flags(const std::optional<std::string>& filter,
                                   std::string_view fallback_filter,
                                   std::optional<int64_t> skip_plies,
                                   std::optional<int64_t> threads);
// Reads every file of a comma-separated list (".pgn" files as games, others as labelled
// lines), drops what the filters reject, and reports each file on stderr; throws
// std::runtime_error naming the file and line of the first bad line.
std::vector<training::LabelledPosition> read_position_files(std::string_view list,
                                                            const PositionInput& input);

}  // namespace sparring::cli
