// The options an engine declares in its reply to `uci` (`option name N type T default D min A
// max B`): read from its output, asked of an engine by starting it, and compared, so that a
// version can record its engine's tunable options and a worker can check that its copy of the
// engine declares the same ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "match/player.h"

namespace sparring::match {

// The most options an engine's reply may declare, and the longest default: an engine that
// declares more is refused rather than stored whole.
constexpr std::size_t kMaxDeclaredOptions = 1024;
constexpr std::size_t kMaxOptionDefaultBytes = 1024;

// One option an engine declares.
struct EngineOption {
    std::string name;
    std::string type;  // check, spin, combo, button, string
    std::string default_value;
    int64_t min = 0;  // spin
    int64_t max = 0;  // spin

    bool operator==(const EngineOption&) const = default;
};

// Reads an `option` line; nullopt for another line or a malformed option (no name or type, a
// spin without numeric bounds, a default outside them, a control character).
std::optional<EngineOption> parse_option_line(std::string_view line);

// Starts the engine, sends `uci`, collects the options it declares until `uciok` (within
// timeout_ms) and makes it quit; nullopt with *error when it fails to start, exits, declares
// too many or does not answer in time.
std::optional<std::vector<EngineOption>> read_engine_options(const UciSpec& engine, int timeout_ms,
                                                             std::string* error);

// Returns how the spin options an engine reports differ from those recorded for its version
// (a missing option, one more, another default or range), names compared as an engine reads
// them; "" when they are the same. Other types are not compared.
std::string spin_options_difference(const std::vector<EngineOption>& recorded,
                                    const std::vector<EngineOption>& reported);

// Returns why a list of options cannot be a version's record of what its engine declares (over
// kMaxDeclaredOptions, one that its engine could not have declared, two spellings of one
// name), or "" when it can.
std::string check_engine_options(const std::vector<EngineOption>& options);

// Returns the option as a line of `sparring versions options`: "Hash spin 16 [1, 33554432]".
std::string option_text(const EngineOption& option);

}  // namespace sparring::match
