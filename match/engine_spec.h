// The one-token engine syntax of `sparring match`: "builtin", "builtin:seed",
// "/usr/games/stockfish", or comma-separated keys such as
// "name=sf1500,cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "match/player.h"

namespace sparring::match {

// Parses an engine spec into a player (reading a params JSON file when one is named);
// nullopt with a one-line message in *error for anything malformed.
std::optional<PlayerSpec> parse_player_spec(std::string_view text, std::string* error = nullptr);

}  // namespace sparring::match
