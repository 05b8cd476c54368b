#include "common/printable.h"

#include <cstdint>
#include <utility>

namespace sparring {

namespace {

// A UTF-8 sequence read at some position: a valid one's length and code point, or the length
// of an ill-formed one's maximal subpart (at least 1).
struct Utf8Sequence {
    std::size_t length;
    bool valid;
    uint32_t code;
};

// Reads the sequence at text[at] by the table of well-formed sequences in the Unicode standard
// (D92): the second byte's range excludes overlong forms, surrogates and code points past
// U+10FFFF.
Utf8Sequence read_utf8(std::string_view text, std::size_t at) {
    const auto lead = uint8_t(text[at]);
    if (lead < 0x80) return {1, true, lead};
    std::size_t length = 0;
    uint32_t value = 0;
    uint8_t low = 0x80;
    uint8_t high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2, value = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3, value = lead & 0x0f;
        if (lead == 0xe0) low = 0xa0;
        if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4, value = lead & 0x07;
        if (lead == 0xf0) low = 0x90;
        if (lead == 0xf4) high = 0x8f;
    } else {
        return {1, false, 0};
    }
    for (std::size_t i = 1; i < length; ++i) {
        if (at + i >= text.size()) return {i, false, 0};
        const auto next = uint8_t(text[at + i]);
        if (next < low || next > high) return {i, false, 0};
        low = 0x80, high = 0xbf;
        value = value << 6 | (next & 0x3f);
    }
    return {length, true, value};
}

// Appends "\xHH" for a byte.
void append_hex(std::string* out, uint8_t value) {
    static constexpr char digits[] = "0123456789abcdef";
    *out += "\\x";
    *out += digits[value >> 4];
    *out += digits[value & 15];
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
    const bool cut = text.size() > max_bytes;
    if (cut) text = utf8_prefix(text, max_bytes);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const uint8_t c = uint8_t(text[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
            ++i;
            continue;
        }
        if (c < 0x80) {
            switch (c) {
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                case 0x1b:
                    out += "\\e";
                    break;
                default:
                    append_hex(&out, c);
            }
            ++i;
            continue;
        }
        const Utf8Sequence sequence = read_utf8(text, i);
        if (!sequence.valid) {
            append_hex(&out, c);
            ++i;
        } else if (sequence.code <= 0x9f) {
            out += "\\u00";
            out += "0123456789abcdef"[sequence.code >> 4];
            out += "0123456789abcdef"[sequence.code & 15];
            i += sequence.length;
        } else {
            out.append(text.substr(i, sequence.length));
            i += sequence.length;
        }
    }
    if (cut) out += "...";
    return out;
}

bool is_printable(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const uint8_t c = uint8_t(text[i]);
        if (c < 0x20 || c == 0x7f) return false;
        if (c < 0x80) {
            ++i;
            continue;
        }
        const Utf8Sequence sequence = read_utf8(text, i);
        if (!sequence.valid || sequence.code <= 0x9f) return false;
        i += sequence.length;
    }
    return true;
}

bool has_control(std::string_view text, std::string_view allowed) {
    for (std::size_t i = 0; i < text.size();) {
        const uint8_t c = uint8_t(text[i]);
        if (c < 0x80) {
            if ((c < 0x20 || c == 0x7f) && allowed.find(char(c)) == std::string_view::npos)
                return true;
            ++i;
            continue;
        }
        const Utf8Sequence sequence = read_utf8(text, i);
        const uint32_t code = sequence.code;
        if (sequence.valid &&
            (code <= 0x9f || code == 0x2028 || code == 0x2029 ||
             (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)))
            return true;
        i += sequence.length;
    }
    return false;
}

namespace {

// The code points has_invisible refuses, as inclusive ranges: Unicode 15's Cf and Zs (but
// U+0020), Zl, Zp, and the default-ignorable or blank letters and marks.
constexpr std::pair<uint32_t, uint32_t> kInvisible[] = {
    {0x00a0, 0x00a0},   {0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x0600, 0x0605},
    {0x061c, 0x061c},   {0x06dd, 0x06dd},   {0x070f, 0x070f},   {0x0890, 0x0891},
    {0x08e2, 0x08e2},   {0x115f, 0x1160},   {0x1680, 0x1680},   {0x17b4, 0x17b5},
    {0x180b, 0x180f},   {0x2000, 0x200f},   {0x2028, 0x202f},   {0x205f, 0x206f},
    {0x2800, 0x2800},   {0x3000, 0x3000},   {0x3164, 0x3164},   {0xfe00, 0xfe0f},
    {0xfeff, 0xfeff},   {0xffa0, 0xffa0},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd},
    {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
    {0xe0000, 0xe0fff},
};

}  // namespace

bool has_invisible(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        if (uint8_t(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const Utf8Sequence sequence = read_utf8(text, i);
        i += sequence.length;
        if (!sequence.valid) continue;
        for (const auto& [first, last] : kInvisible)
            if (sequence.code >= first && sequence.code <= last) return true;
    }
    return false;
}

bool is_valid_utf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        if (uint8_t(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const Utf8Sequence sequence = read_utf8(text, i);
        if (!sequence.valid) return false;
        i += sequence.length;
    }
    return true;
}

std::string valid_utf8(std::string_view text) {
    if (is_valid_utf8(text)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Sequence sequence = read_utf8(text, i);
        if (sequence.valid)
            out.append(text.substr(i, sequence.length));
        else
            out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
        i += sequence.length;
    }
    return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    // Back to the lead byte of the sequence the cut falls in, if it falls inside one.
    std::size_t start = max_bytes;
    while (start > 0 && max_bytes - start < 3 && (uint8_t(text[start]) & 0xc0) == 0x80) --start;
    if (start < max_bytes) {
        const Utf8Sequence sequence = read_utf8(text, start);
        if (sequence.valid && start + sequence.length > max_bytes) return text.substr(0, start);
    }
    return text.substr(0, max_bytes);
}

}  // namespace sparring
