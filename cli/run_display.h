// How the remote commands print runs for a person: tables, times, time controls, and the
// `show` layout of a run of game pairs (regression, fixed-games and tuning runs).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/client.h"
#include "common/numbers.h"
#include "proto/text.h"
#include "proto/time_control.h"

namespace sparring::cli {

// Prints rows as left-aligned columns, the first row being the header, with control
// characters in cells escaped.
void print_table(const std::vector<std::vector<std::string>>& rows);
// Returns a Unix time in milliseconds as "2024-05-01 12:00:00 UTC", or "-" for 0.
std::string utc(int64_t unix_ms);
// Returns a run's state name: "active", "finished" or "stopped".
std::string state_name(v1::RunState state);
// Returns a run's state with its result after the separator ("finished: H1 accepted"), or the
// result alone when it starts with the state's name ("stopped by user", not "stopped: stopped
// by user").
std::string state_text(const v1::RunStatus& run, std::string_view separator = ": ");

// What differs between the `show` layouts of the kinds that play game pairs.
struct GameRunLayout {
    std::string_view label;  // the "kind:" row
    bool games_at_most;      // --games is a maximum
    bool sprt;               // the SPRT settings and the LLR
    bool against_itself;     // one version played with +/- perturbations: no Elo
};

// Prints every field of a run of game pairs for a person.
void print_game_run(const v1::RunStatus& run, const GameRunLayout& layout);
// Returns a worker's fit in its run in one cell: "p 0.421, residual +1.2", "too few pairs",
// "alone in its class" (no other worker of its CPU class to test it against),
// with " QUARANTINED" when the coordinator leases it no more of the run.
std::string fit_text(const v1::WorkerFit& fit);
// Prints what was changed of a run after its submission, with who and when (one line each):
// the page its status carries (before the newest changes_offset), and how to see earlier ones.
void print_run_changes(const v1::RunStatus& run, uint32_t changes_offset = 0);

}  // namespace sparring::cli
