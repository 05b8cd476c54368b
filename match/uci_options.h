// What a UCI option may hold before it is written as `setoption name N value V`: one line
// each, with caps on count and size, so no option can smuggle in another command; and what a
// submitted version may ask of the engines on other people's workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sparring::match {

constexpr std::size_t kMaxUciOptions = 64;
constexpr std::size_t kMaxUciOptionNameBytes = 128;
constexpr std::size_t kMaxUciOptionValueBytes = 1024;
constexpr int64_t kMaxUciHashMb = 65536;  // the Hash option of a submitted version, MiB

using UciOptions = std::vector<std::pair<std::string, std::string>>;

// Returns the name an engine reads: whitespace runs as one space, none at either end, ASCII
// letters lowercased. Engines split `setoption` on whitespace, rejoin the words with single
// spaces and (UCI says) ignore case, so "Debug  Log  File" and "debug log file" are one
// option; "Ha sh" is not "Hash".
std::string canonical_option_name(std::string_view name);

// Returns why options cannot be sent to an engine (too many, too long, a control character
// such as a newline, a name that is empty, padded or holds the word "value"), or "" when
// they can.
std::string check_uci_options(const UciOptions& options);

// Returns why a submitted version may not send options to the engines of the service's
// workers, comparing names by canonical_option_name: two spellings of one option, an option
// that writes a log file (a name holding "logfile" once spaces, '_' and '-' are dropped:
// Stockfish's Debug Log File, Lc0's LogFile), or a Hash that is not a number of MiB in
// 0..kMaxUciHashMb; "" when none.
std::string check_submitted_uci_options(const UciOptions& options);

// Returns the values of the options an engine reads as `name`, in the order of options.
template <typename Options>
std::vector<std::string> uci_option_values(const Options& options, std::string_view name) {
    const std::string wanted = canonical_option_name(name);
    std::vector<std::string> values;
    for (const auto& [key, value] : options)
        if (canonical_option_name(key) == wanted) values.push_back(value);
    return values;
}

}  // namespace sparring::match
