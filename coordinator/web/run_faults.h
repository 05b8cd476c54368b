// The run page's faulty games (issue 51, item 3): the games lost by an engine's fault, each
// linked to its evidence page with the engine's transcript and stderr. Engine output is
// hostile text: every byte of it is escaped.
#pragma once

#include <string>

#include "sparring/v1/user.pb.h"

namespace sparring::coordinator::web {

// The faulty games the run page lists at most (the rest are counted).
constexpr uint32_t kFaultyGamesOnRunPage = 50;

// Returns the run page's section of faulty games ("" when there are none).
std::string faulty_games_section(int64_t run_id, const v1::ListFaultsResponse& faults);
// Returns the page of one faulty game: its engine, options, position, go, transcript, stderr.
std::string fault_page(const v1::FaultyGame& game);

}  // namespace sparring::coordinator::web
