// A match player that searches with the built-in engine in this process: no pipes, no text.
#pragma once

#include <string>

#include "engine/engine.h"
#include "match/player.h"

namespace sparring::match {

class BuiltinPlayer : public Player {
  public:
    // Creates the in-process engine the spec describes.
    explicit BuiltinPlayer(PlayerSpec spec);

    // Returns the spec the player was made from.
    const PlayerSpec& spec() const override { return spec_; }
    // Clears what the engine learnt in the last game.
    bool new_game(std::string* error) override;
    // Searches in-process; the engine keeps to the limits itself, so timeout_ms is not needed.
    MoveReply play(const GamePosition& position, const SearchLimits& limits,
                   int timeout_ms) override;
    // Takes another built-in spec's parameters and name (same hash size).
    bool reconfigure(const PlayerSpec& spec, std::string* error) override;

  private:
    PlayerSpec spec_;
    Engine engine_;
};

}  // namespace sparring::match
