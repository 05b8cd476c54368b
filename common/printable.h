// Showing untrusted text on a terminal or in one log line: control characters (terminal
// escapes, newlines) and broken UTF-8 escaped, long text cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sparring {

// Returns text with every control character written as an escape (\n, \t, \r, \e, \xHH,
// \u0085 for C1 controls) and each byte of broken UTF-8 as \xHH; cut after max_bytes of
// input with "..." appended.
std::string printable(std::string_view text, std::size_t max_bytes = std::string_view::npos);

// Returns whether text is valid UTF-8 without control characters (C0, DEL or C1).
bool is_printable(std::string_view text);

}  // namespace sparring
