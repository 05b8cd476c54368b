// One game between two players: the rules of chess, clocks, adjudication and engine faults.
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/opening.h"
#include "common/outcome.h"
#include "common/time_control.h"
#include "engine/types.h"
#include "match/adjudication.h"
#include "match/output_checks.h"
#include "match/player.h"

namespace sparring::match {

enum class Termination {
    Checkmate,
    Stalemate,
    ThreefoldRepetition,
    FiftyMoves,
    InsufficientMaterial,
    DrawAdjudication,
    ResignAdjudication,
    MaxPlies,
    TimeForfeit,
    IllegalMove,
    Crash,   // the engine died, or could not be started for the game
    Stalled  // no move within the stall timeout of an untimed control
};

// Returns the PGN Termination tag value ("normal", "adjudication", "time forfeit", ...).
std::string_view pgn_termination(Termination termination);

struct PlayedMove {
    Move move;
    bool book = false;                 // an opening move, not chosen by an engine
    std::optional<EngineScore> score;  // mover's point of view
    int depth = 0;
    int time_ms = 0;
};

struct GameResult {
    std::string white;
    std::string black;
    std::string start_fen;            // before the opening moves
    std::vector<PlayedMove> moves;    // opening moves first
    Outcome outcome = Outcome::Draw;  // white's
    Termination termination = Termination::MaxPlies;
    std::string reason;  // one line, e.g. "Black's engine crashed (exit status 1)"
    std::string pgn;     // filled by the runner when PGN recording is on
    // A game lost by a fault of a UCI engine: that engine's evidence (match/transcript.h).
    std::optional<FaultEvidence> evidence;
    // Each engine's output warnings in the game, by colour (match/output_checks.h).
    std::array<std::vector<OutputWarning>, COLOR_NB> output_warnings;
};

struct GameSettings {
    TimeControl time_control;
    Adjudication adjudication;
    int stall_timeout_ms = 30000;  // untimed controls: longest wait for a move
};

// Plays the opening and then the game to its end; returns nullopt if stop became true first.
std::optional<GameResult> play_game(Player& white, Player& black, const Opening& opening,
                                    const GameSettings& settings, const std::atomic<bool>& stop);

}  // namespace sparring::match
