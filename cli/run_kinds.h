// Run kinds as the CLI sees them: everything `submit`, `show`, `runs`, `show --watch` and
// `versions add --from-run` do differently for regression, fixed-games, tuning, generation,
// training and chain runs sits in one entry per kind, in one table (run_kinds.cpp). The
// commands look a run's kind up and call its entry; they never branch on the kind themselves.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "cli/client.h"
#include "cli/spec_flags.h"

namespace sparring::cli {

// The cells a kind fills in a row of `runs`.
struct RunsCells {
    std::string time_control;
    std::string elo;
    std::string llr;
};

// One run kind of the CLI.
struct CliRunKind {
    v1::RunKind proto_kind;
    // Returns the kind's name in the KIND column of `runs`: "sprt", "fixed", "tune", ...
    std::string_view name;
    // The value of `submit TEST BASE --kind K` that selects the kind ("" for none).
    std::string_view kind_flag;
    // The first word of `submit WORD ...` that selects the kind ("" for none).
    std::string_view submit_word;
    // Whether `submit WORD` takes the versions from flags (--version) rather than as
    // arguments after WORD.
    bool versions_from_flags;
    // Writes the kind's own settings of `submit` from its flags, with their defaults, and the
    // spec's kind (the versions and the scheduling flags are the caller's); throws UsageError
    // for a bad flag.
    void (*read_spec)(const SubmitFlags& args, v1::RunSpec& spec);
    // Whether `submit` reads --tc and --book for the kind.
    bool takes_time_control;
    bool takes_book;
    // Returns what `submit` says it started: "A vs B, 100 openings".
    std::string (*submitted)(const v1::RunStatus& run, const v1::RunSpec& spec);
    // Prints a run of the kind for `show`.
    void (*show)(const v1::RunStatus& run, RemoteClient& client);
    // Returns the kind's cells of a `runs` row.
    RunsCells (*runs_cells)(const v1::RunStatus& run);
    // Returns the one line `show --watch` shows of a run of the kind.
    std::string (*progress)(const v1::RunStatus& run);
};

// Returns the entry of a run kind; a kind this CLI does not know shows as fixed games.
const CliRunKind& cli_run_kind(v1::RunKind kind);
// Returns the kind `submit WORD` selects, or null when WORD names none.
const CliRunKind* cli_run_kind_by_word(std::string_view word);
// Returns the kind `submit TEST BASE --kind K` selects, or null when K names none.
const CliRunKind* cli_run_kind_by_flag(std::string_view kind_flag);

}  // namespace sparring::cli
