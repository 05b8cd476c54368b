// Textual forms of domain values, as stored in SQLite and shown to users: enum names, time
// controls, and the opening book's line format.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

std::string_view role_name(Role role);
std::optional<Role> parse_role(std::string_view text);
std::string_view run_kind_name(RunKind kind);
std::optional<RunKind> parse_run_kind(std::string_view text);
std::string_view run_state_name(RunState state);
std::optional<RunState> parse_run_state(std::string_view text);
std::string_view lease_state_name(LeaseState state);
std::optional<LeaseState> parse_lease_state(std::string_view text);
// The names stored in the games table ("" for Unknown, "rules", ..., "time_loss", ...).
std::string_view game_ending_name(GameEnding ending);
std::optional<GameEnding> parse_game_ending(std::string_view text);

// Returns text as it may be echoed in a message or a log line: at most max bytes cut at a
// code-point boundary (with the full size named when cut), control characters escaped as \xNN,
// broken UTF-8 replaced by U+FFFD: always valid UTF-8.
std::string excerpt(std::string_view text, size_t max = 64);
// Returns the decimal integer text holds entirely, or nullopt (also on overflow).
std::optional<int64_t> parse_int(std::string_view text);

// Returns the book's openings as "FEN<TAB>move move ...<LF>" lines.
std::string format_openings(const std::vector<Opening>& openings);
// Parses the lines format_openings writes.
std::vector<Opening> parse_openings(std::string_view text);

}  // namespace sparring::coordinator
