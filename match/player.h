// The two kinds of match players, the built-in engine in-process and an external UCI engine,
// behind one interface the game loop drives.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/params.h"
#include "match/adjudication.h"
#include "match/child_process.h"
#include "match/output_checks.h"
#include "match/transcript.h"

namespace sparring::match {

// The built-in engine, searched in-process with its own parameters and hash table.
struct BuiltinSpec {
    ParamSet params;
    int hash_mb = 16;
};

// An external engine speaking UCI on its standard input and output.
struct UciSpec {
    std::string command;  // path, or a name in PATH
    std::vector<std::string> args;
    std::string working_dir;  // empty: a fresh temporary one per engine process
    std::vector<std::pair<std::string, std::string>> options;  // sent with setoption, in order
    // How its process is confined: limits, sandbox, resource group (working_dir above wins).
    ChildOptions confinement{};
};

struct PlayerSpec {
    std::string name;
    std::variant<BuiltinSpec, UciSpec> engine;
    int time_margin_ms = 0;  // how far past its clock (or movetime) it may run before losing
    // The instruction-set level of the build it runs, for the PGN's WhiteBuild/BlackBuild tags
    // ("x86-64-v3", "portable"; "": not an uploaded build).
    std::string build = {};
};

// What a player sees when asked for a move: the game's start and every move since.
struct GamePosition {
    const std::string& start_fen;
    const std::vector<Move>& moves;  // from start_fen, opening moves included
    const Board& board;              // start_fen with moves played
};

struct MoveReply {
    enum class Status { Ok, IllegalMove, Crashed, Stalled };

    Status status = Status::Ok;
    Move move;                         // the legal move played (Status::Ok)
    std::string text;                  // the move as the engine wrote it
    std::optional<EngineScore> score;  // the engine's last reported score, if any
    int depth = 0;
    std::uint64_t nodes = 0;  // nodes searched, as the engine last reported (0: not reported)
    std::string error;        // what went wrong, when status is not Ok
};

class Player {
  public:
    virtual ~Player() = default;

    // Returns the spec the player was made from.
    virtual const PlayerSpec& spec() const = 0;
    // Prepares for a new game (restarting a failed engine); false with *error if it cannot.
    virtual bool new_game(std::string* error) = 0;
    // Searches the position with the limits, giving up after timeout_ms of wall time.
    virtual MoveReply play(const GamePosition& position, const SearchLimits& limits,
                           int timeout_ms) = 0;
    // Becomes the player of another spec of the same engine that differs only in its name,
    // parameters (built-in) or option values (UCI, sent with setoption to a running engine,
    // only those that changed): an SPSA pair's values without a new engine. Returns false,
    // changing nothing, for another engine, another hash or command, an option left out, or
    // an option value setoption cannot carry (*error says which); the caller then makes a
    // new player.
    virtual bool reconfigure(const PlayerSpec& spec, std::string* error) = 0;
    // Returns what an external engine leaves behind when it loses the current game by a fault
    // (match/transcript.h); nullopt for the built-in engine.
    virtual std::optional<FaultEvidence> fault_evidence() const { return std::nullopt; }
    // Returns the current game's engine-output warnings (match/output_checks.h) and forgets
    // them; none for the built-in engine.
    virtual std::vector<OutputWarning> take_output_warnings() { return {}; }
};

// Creates the player a spec describes; external engines start on first use.
std::unique_ptr<Player> make_player(const PlayerSpec& spec);

}  // namespace sparring::match
