// A match player that runs an external UCI engine as a child process.
#pragma once

#include <string>

#include "match/child_process.h"
#include "match/player.h"

namespace sparring::match {

// Returns how a UCI engine's process runs: its directory, limits and sandbox.
ChildOptions child_options_of(const UciSpec& engine);

class UciPlayer : public Player {
  public:
    // Makes a player for the spec's UCI engine, not started yet.
    explicit UciPlayer(PlayerSpec spec);
    // Shuts the engine down.
    ~UciPlayer() override;

    // Returns the spec the player was made from.
    const PlayerSpec& spec() const override { return spec_; }
    // Starts or restarts the engine when needed and sends ucinewgame.
    bool new_game(std::string* error) override;
    // Asks the engine for a move within timeout_ms.
    MoveReply play(const GamePosition& position, const SearchLimits& limits,
                   int timeout_ms) override;
    // Takes another spec of the same command's option values, sending those that changed.
    bool reconfigure(const PlayerSpec& spec, std::string* error) override;
    // Returns the game's UCI exchange, the engine's stderr tail and what it was last asked.
    std::optional<FaultEvidence> fault_evidence() const override;
    // Returns the game's engine-output warnings and forgets them.
    std::vector<OutputWarning> take_output_warnings() override { return checks_.take(); }

  private:
    // Starts the engine and runs the handshake.
    bool start(std::string* error);
    // Waits for a line starting with token.
    bool wait_for(std::string_view token, std::string* error);
    // Returns a reply with a failure status.
    MoveReply fail(MoveReply::Status status, std::string error);

    PlayerSpec spec_;
    const UciSpec& uci_;
    ChildProcess process_;
    Transcript transcript_;  // this game's exchange (match/transcript.h)
    // This game's engine-output checks (match/output_checks.h).
    OutputChecks checks_;
    bool ready_ = false;  // started, handshake done, not known to be broken
};

}  // namespace sparring::match
