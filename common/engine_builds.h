// Builds of an uploaded engine per instruction-set level (docs/engines.md "Builds per
// instruction set"): which levels a build may name, and which of a version's builds a worker
// plays. Pure functions, so that the coordinator (which leases) and the worker (which plays)
// choose alike.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sparring {

// The name of a build's level as the CLI, the PGN and the API write it: the level, or
// "portable" for a build that states none ("").
std::string build_level_name(std::string_view level);

// Returns why a build cannot need this level ("" when it can): a level is empty (portable) or
// one of known_isa_levels() (common/cpu_class.h).
std::string build_level_error(std::string_view level);

// Returns the build a worker plays: among builds (their levels, "" for portable) those it
// runs (portable, or a level its CPU has: one of cpu_levels) and has not refused (refused
// holds build_level_name()s of builds that died of SIGILL there), the one of the highest
// level, the earliest on a tie; nullopt when it runs none.
std::optional<size_t> best_build(std::span<const std::string> builds,
                                 std::span<const std::string> cpu_levels,
                                 std::span<const std::string> refused = {});

// Says why a worker runs none of a version's builds, e.g. "needs x86-64-v4; it has
// x86-64-v3" or "its x86-64-v3 build died of SIGILL there".
std::string no_build_text(std::span<const std::string> builds,
                          std::span<const std::string> cpu_levels,
                          std::span<const std::string> refused = {});

}  // namespace sparring
