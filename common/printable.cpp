#include "common/printable.h"

#include <cstdint>

namespace sparring {

namespace {

// Returns the length of the valid UTF-8 sequence at text[at] (0 when it is not one) and its
// code point in *code.
std::size_t utf8_sequence(std::string_view text, std::size_t at, uint32_t* code) {
    const auto byte = [&](std::size_t i) { return uint8_t(text[i]); };
    const uint8_t lead = byte(at);
    std::size_t length = 0;
    uint32_t value = 0;
    uint32_t least = 0;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2, value = lead & 0x1f, least = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3, value = lead & 0x0f, least = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4, value = lead & 0x07, least = 0x10000;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xc0) != 0x80) return 0;
        value = value << 6 | (byte(at + i) & 0x3f);
    }
    if (value < least || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
    *code = value;
    return length;
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
    if (cut) text = text.substr(0, max_bytes);
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
        uint32_t code = 0;
        const std::size_t length = utf8_sequence(text, i, &code);
        if (length == 0) {
            append_hex(&out, c);
            ++i;
        } else if (code <= 0x9f) {
            out += "\\u00";
            out += "0123456789abcdef"[code >> 4];
            out += "0123456789abcdef"[code & 15];
            i += length;
        } else {
            out.append(text.substr(i, length));
            i += length;
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
        uint32_t code = 0;
        const std::size_t length = utf8_sequence(text, i, &code);
        if (length == 0 || code <= 0x9f) return false;
        i += length;
    }
    return true;
}

}  // namespace sparring
