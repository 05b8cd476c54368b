// A match player that runs an external UCI engine as a child process.
#pragma once

#include <string>

#include "match/child_process.h"
#include "match/player.h"

namespace sparring::match {

class UciPlayer : public Player {
  public:
    explicit UciPlayer(PlayerSpec spec);
    ~UciPlayer() override;

    const PlayerSpec& spec() const override { return spec_; }
    bool new_game(std::string* error) override;
    MoveReply play(const GamePosition& position, const SearchLimits& limits,
                   int timeout_ms) override;

  private:
    bool start(std::string* error);
    bool wait_for(std::string_view token, std::string* error);
    MoveReply fail(MoveReply::Status status, std::string error);

    PlayerSpec spec_;
    const UciSpec& uci_;
    ChildProcess process_;
    bool ready_ = false;  // started, handshake done, not known to be broken
};

}  // namespace sparring::match
