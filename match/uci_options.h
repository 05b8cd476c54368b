// What a UCI option may hold before it is written as `setoption name N value V`: one line
// each, with caps on count and size, so no option can smuggle in another command.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sparring::match {

constexpr std::size_t kMaxUciOptions = 64;
constexpr std::size_t kMaxUciOptionNameBytes = 128;
constexpr std::size_t kMaxUciOptionValueBytes = 1024;

// Returns why options cannot be sent to an engine (too many, too long, a control character
// such as a newline, a name that is empty, padded or holds the word "value"), or "" when
// they can.
std::string check_uci_options(const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace sparring::match
