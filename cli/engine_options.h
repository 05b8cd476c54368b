// The options of a version's engine in the CLI: read from the engine when `versions add` adds
// it, listed by `versions options NAME`, and the parameters of `submit tune` given one by one
// (--param NAME[:START:MIN:MAX:C_END:R_END]) or in the OpenBench/fishtest SPSA format
// (--params-file: `NAME, int|float, START, MIN, MAX, C_END, R_END` a line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sparring/v1/common.pb.h"

namespace sparring::cli {

// Asks the engine (command with args, on this machine) for the options it declares and records
// them in the version; when it cannot (not installed here, no answer), says so on stderr and
// leaves them unrecorded: the version plays, but its options cannot be tuned.
void record_engine_options(v1::Version& version, const std::string& command,
                           const std::vector<std::string>& args,
                           const std::string& working_dir = {}, const std::string& label = {});

// Unpacks an engine archive into a temporary directory (with the checks and limits a worker
// applies), asks its entry for its options as record_engine_options does, and removes the
// directory. An archive that does not unpack, or an entry outside it, records nothing (the
// coordinator refuses such an upload with its own message).
void record_archive_options(v1::Version& version, const std::string& archive,
                            const std::string& entry, const std::vector<std::string>& args);

// Returns the rows of `versions options NAME` (a heading, then one per option) as the
// coordinator lists them: a UCI or uploaded version's recorded options, a built-in version's
// parameters (each a spin option with the version's value as its default).
std::vector<std::vector<std::string>> engine_option_rows(const v1::Version& version);

// Reads --param NAME[:START:MIN:MAX:C_END:R_END]; an empty field keeps its default
// ("Skill Level::0:10" sets MIN and MAX). Throws UsageError for a malformed one.
v1::TuneParam parse_tune_param(std::string_view text);

// Reads an SPSA parameter file, one parameter a line (`NAME, int|float, START, MIN, MAX,
// C_END, R_END`; blank lines and lines starting with # skipped). Throws UsageError naming the
// file, line and column of the first mistake.
std::vector<v1::TuneParam> parse_params_file(std::string_view text, const std::string& file);

}  // namespace sparring::cli
