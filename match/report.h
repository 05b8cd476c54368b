// Running totals of a match and the text that shows them: a live progress line and the
// final report (W/D/L, pentanomial counts, Elo, LOS, nElo and the SPRT state).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "match/game.h"
#include "match/runner.h"
#include "stats/stats.h"

namespace sparring::match {

// Results from the first player's ("A") point of view.
struct MatchTally {
    std::int64_t wins = 0;
    std::int64_t draws = 0;
    std::int64_t losses = 0;
    stats::Pentanomial pentanomial;
    std::map<Termination, std::int64_t> terminations;

    // Adds both games of a finished pair.
    void add(const PairResult& pair);
    // Returns the number of games counted.
    std::int64_t games() const { return wins + draws + losses; }
};

// Returns the short name of a termination ("checkmate", "time forfeit", ...).
std::string_view termination_name(Termination termination);
// Returns the SPRT state of the tally.
stats::SprtResult sprt_state(const MatchTally& tally, const stats::SprtParams& sprt);
// Returns one line: games played, W/D/L and Elo so far, and the LLR when an SPRT runs.
std::string progress_line(const MatchTally& tally, std::int64_t games_played,
                          std::int64_t games_total, const std::optional<stats::SprtParams>& sprt);
// Returns the final report of first against second, several lines.
std::string final_report(std::string_view first, std::string_view second, const MatchTally& tally,
                         const std::optional<stats::SprtParams>& sprt);

}  // namespace sparring::match
