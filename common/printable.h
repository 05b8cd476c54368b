// Untrusted text: made valid UTF-8 before it is stored or sent (broken bytes replaced, cuts at
// code-point boundaries), and shown on a terminal or in one log line (control characters such
// as terminal escapes and newlines escaped, broken UTF-8 escaped, long text cut).
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

// Returns whether text holds a character that must not reach a stored name, description or
// engine line: a C0 control (but those listed in `allowed`), DEL, a C1 control, or a format
// character that reorders or breaks text unseen (the bidirectional embeddings, overrides and
// isolates U+202A-U+202E and U+2066-U+2069, the line and paragraph separators U+2028, U+2029).
bool has_control(std::string_view text, std::string_view allowed = {});

// Returns whether text holds a character that shows as nothing, or as a blank other than the
// ASCII space, so that two names that look alike differ: a format character (Unicode's Cf:
// the soft hyphen, zero-width space and joiners, word joiner, byte order mark, bidirectional
// marks, tags), a space other than U+0020 (no-break, en, em, ideographic ...), a line or
// paragraph separator, a Hangul filler, the combining grapheme joiner or a variation selector.
bool has_invisible(std::string_view text);

// Returns whether text is well-formed UTF-8 (no overlong forms, surrogates or code points
// past U+10FFFF; controls allowed).
bool is_valid_utf8(std::string_view text);

// Returns text with each ill-formed part replaced by U+FFFD, one per maximal subpart as
// Unicode recommends ("\xe2\x82" is one U+FFFD, "\xc0\xaf" two); valid text is unchanged.
std::string valid_utf8(std::string_view text);

// Returns the longest prefix of text of at most max_bytes that does not end inside a valid
// UTF-8 sequence: cutting valid text there leaves valid text.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

}  // namespace sparring
