// A run's fault bound: how many of its games may be faulty (time losses, crashes, stalls,
// illegal moves) before the coordinator pauses it, and the text users write it in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sparring {

// More than `percent` percent of the games counted, once at least min_games are counted;
// off: never.
struct FaultBound {
    int percent = 10;
    int64_t min_games = 20;
    bool off = false;

    bool operator==(const FaultBound&) const = default;
};

// Returns why a bound is out of range (percent 1..100, min_games at least 2), or "".
std::string fault_bound_problem(const FaultBound& bound);
// Parses "PERCENT%[/MIN_GAMES]" ("10%/20", "25%": the minimum stays min_games) or "off";
// sets *error and returns nullopt on anything else.
std::optional<FaultBound> parse_fault_bound(std::string_view text, std::string* error,
                                            int64_t min_games = FaultBound{}.min_games);
// Returns the bound as parse_fault_bound reads it: "10%/20" or "off".
std::string fault_bound_text(const FaultBound& bound);
// Returns whether `faults` faulty games among `games` pass the bound.
bool passes_fault_bound(const FaultBound& bound, int64_t faults, int64_t games);

}  // namespace sparring
