// `sparring repro RUN GAME --run`: replays a faulty game's UCI exchange against a local engine
// and says whether the fault comes again.
#pragma once

#include <chrono>
#include <string>

#include "sparring/v1/user.pb.h"

namespace sparring::cli {

// How a replay is run: the engine to start (--engine, or the UCI version's own command from
// the coordinator's record; never a command from the worker's evidence) and how long a search
// of a node- or depth-limited `go` may take before it counts as a stall.
struct ReplaySettings {
    std::string command;
    std::chrono::milliseconds stall_timeout{30000};
    std::chrono::milliseconds margin{100};  // past a clock's or movetime's time
};

// What a replay saw.
struct ReplayOutcome {
    v1::GameEnding fault = v1::GAME_ENDING_UNSPECIFIED;  // UNSPECIFIED: no fault
    std::string what;    // in words: "crashed (killed by signal 11 ...)", "answered e2e4"
    int go_index = 0;    // the `go` the replay ended at, from 1
    int go_count = 0;    // the `go` commands replayed in all
    bool exact = false;  // the game's whole exchange was replayed
    std::string stderr_tail;
};

// Replays the game's sent lines (the whole exchange when its transcript is complete, else the
// handshake, its options, the last position and the `go`), waiting for each answer.
ReplayOutcome replay_fault(const v1::FaultyGame& game, const ReplaySettings& settings);

}  // namespace sparring::cli
