// The tuning side of the remote commands: reading a tuning spec from flags, showing a tuning
// run's values, following a run live, and the values of a run as a version's overrides.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cli/client.h"
#include "cli/spec_flags.h"
#include "common/numbers.h"

namespace sparring::cli {

// Returns the current values of a tuning run in one line, "Mg/Eg" pairs joined:
// " Knight 301/297 Bishop 352/340".
std::string values_line(const v1::TuneStatus& tune);

// Writes the tuning spec of `submit tune` (--params, --c-end, --r-end, --verify,
// --verify-games) into a run spec; throws UsageError for a bad flag.
void read_tune_spec(const SubmitFlags& args, v1::TuneSpec* out);

// Prints a tuning run's parameters (start, current value, bounds, gains) and, once started,
// its verification run with the Elo; for a verification run, the run it verifies.
void print_tune(const v1::RunStatus& run, RemoteClient& client);

// Follows a run until it ends: one line updated in place on a terminal (a new line every
// ten seconds otherwise) with games or pairs done and the current values or Elo and LLR.
void watch_run(int64_t run_id, RemoteClient& client);

}  // namespace sparring::cli
