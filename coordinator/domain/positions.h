// Labelled positions as the domain sees them, whatever kind of run stores them: the check of
// reported positions (before a report reaches the writer) and the import of positions into a
// generation run (Core::import_positions, positions.cpp).
#pragma once

#include "absl/status/status.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// The longest game a generation run plays, in plies; a game yields at most one position a ply.
inline constexpr int kMaxGeneratePlies = 400;

// Checks the labelled positions of a report, before it reaches the writer: they must decode
// as legal positions in canonical form, be no more than a game yields, and carry their
// game's result (outcomes of generation games are white's).
absl::Status check_report_positions(const Report& report);
// Returns whether any game of a report has positions (only generation runs take them).
bool has_positions(const Report& report);

}  // namespace sparring::coordinator
