// A time control for a game: fixed nodes, fixed depth, time per move, or a clock; the one form
// the CLI reads, the coordinator stores and the match runner plays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sparring {

struct TimeControl {
    enum class Kind { Nodes, Depth, MoveTime, Clock };

    Kind kind = Kind::Nodes;
    std::uint64_t nodes = 1000;  // Kind::Nodes
    int depth = 0;               // Kind::Depth
    int movetime_ms = 0;         // Kind::MoveTime
    int base_ms = 0;             // Kind::Clock: starting time of each side
    int inc_ms = 0;              // Kind::Clock: added after each move

    // Returns the time control in the syntax parse_time_control reads ("nodes=N", "10+0.1").
    std::string to_string() const;
    // Returns the value of the PGN TimeControl tag ("-" when no clock runs).
    std::string pgn_tag() const;
};

// Parses "nodes=N", "depth=N", "movetime=MS" or a clock "BASE+INC" in seconds with at most
// three decimals ("10+0.1", "60"); returns nullopt with a message in *error for anything else.
std::optional<TimeControl> parse_time_control(std::string_view text, std::string* error = nullptr);

}  // namespace sparring
