// The serialized form of a parameter set: a flat JSON object of "Name": integer pairs,
// written and read here without a JSON library.
#include <string>
#include <vector>

#include "engine/params.h"

namespace sparring {

namespace {

// Reads one flat JSON object of integers; the first error stops it and is kept in message().
class JsonObjectReader {
  public:
    explicit JsonObjectReader(std::string_view text) : text_(text) {}

    // Reads the whole text into set, applying each pair in order; false on the first error.
    bool read_into(ParamSet& set) {
        std::vector<bool> seen(param_registry().size(), false);
        skip_whitespace();
        if (!expect('{')) return false;
        skip_whitespace();
        if (peek() == '}') {
            ++pos_;
        } else {
            while (true) {
                if (!read_member(set, seen)) return false;
                skip_whitespace();
                if (peek() == '}') {
                    ++pos_;
                    break;
                }
                if (!expect(',')) return false;
                skip_whitespace();
            }
        }
        skip_whitespace();
        if (pos_ != text_.size()) return fail("unexpected text after the closing '}'");
        return true;
    }

    // Returns the message of the first error.
    const std::string& message() const { return message_; }

  private:
    // Returns the next character, or '\0' at the end of the text.
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    // Skips JSON whitespace: spaces, tabs, newlines and carriage returns.
    void skip_whitespace() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                       text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }

    // Describes a text offset as a line and column, both counted from 1.
    std::string position(std::size_t offset) const {
        int line = 1, column = 1;
        for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        return "line " + std::to_string(line) + ", column " + std::to_string(column);
    }

    // Records an error at the current position and returns false.
    bool fail(const std::string& what) { return fail_at(pos_, what); }

    // Records an error at a given offset and returns false.
    bool fail_at(std::size_t offset, const std::string& what) {
        message_ = "parameter JSON, " + position(offset) + ": " + what;
        return false;
    }

    // Consumes the character c, or fails naming what was found instead.
    bool expect(char c) {
        if (pos_ >= text_.size()) return fail(std::string("expected '") + c + "', found the end");
        if (text_[pos_] != c)
            return fail(std::string("expected '") + c + "', found '" + text_[pos_] + "'");
        ++pos_;
        return true;
    }

    // Reads a double-quoted name without escape sequences.
    bool read_name(std::string_view& name) {
        if (peek() != '"') return fail("expected a parameter name in double quotes");
        const std::size_t start = ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            const unsigned char c = static_cast<unsigned char>(text_[pos_]);
            if (c == '\\') return fail("escape sequences are not allowed in parameter names");
            if (c < 0x20) return fail("control character in a parameter name");
            ++pos_;
        }
        if (pos_ >= text_.size()) return fail_at(start - 1, "unterminated parameter name");
        name = text_.substr(start, pos_ - start);
        ++pos_;
        return true;
    }

    // Reads a JSON number that must be an integer; name is only for the messages.
    bool read_integer(std::string_view name, long long& value) {
        const std::size_t start = pos_;
        const bool negative = peek() == '-';
        if (negative) ++pos_;
        if (peek() < '0' || peek() > '9')
            return fail_at(start, "the value of " + std::string(name) + " must be an integer");
        if (peek() == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' &&
            text_[pos_ + 1] <= '9')
            return fail("leading zero in the value of " + std::string(name));
        constexpr long long LIMIT = 1'000'000'000'000LL;  // far beyond every bound
        long long magnitude = 0;
        while (peek() >= '0' && peek() <= '9') {
            if (magnitude < LIMIT) magnitude = magnitude * 10 + (peek() - '0');
            ++pos_;
        }
        if (peek() == '.' || peek() == 'e' || peek() == 'E')
            return fail_at(start, "the value of " + std::string(name) + " is not an integer");
        value = negative ? -magnitude : magnitude;
        return true;
    }

    // Reads one "Name": integer pair and applies it to set.
    bool read_member(ParamSet& set, std::vector<bool>& seen) {
        const std::size_t name_offset = pos_;
        std::string_view name;
        if (!read_name(name)) return false;
        const auto index = param_index(name);
        if (!index) return fail_at(name_offset, "unknown parameter \"" + std::string(name) + "\"");
        if (seen[*index])
            return fail_at(name_offset, "parameter " + std::string(name) + " appears twice");
        seen[*index] = true;
        skip_whitespace();
        if (!expect(':')) return false;
        skip_whitespace();
        const std::size_t value_offset = pos_;
        long long value = 0;
        if (!read_integer(name, value)) return false;
        const ParamSpec& spec = param_registry()[*index];
        if (value < spec.min || value > spec.max)
            return fail_at(value_offset, std::string(name) + " = " + std::to_string(value) +
                                             " is outside [" + std::to_string(spec.min) + ", " +
                                             std::to_string(spec.max) + "]");
        set.set(name, static_cast<int>(value));
        return true;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::string message_;
};

}  // namespace

std::string ParamSet::to_json() const {
    std::string out = "{";
    const auto specs = param_registry();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        if (i > 0) out += ", ";
        out += '"';
        out += specs[i].name;
        out += "\": ";
        out += std::to_string(values_[i]);
    }
    out += '}';
    return out;
}

std::optional<ParamSet> ParamSet::from_json(std::string_view text, const ParamSet& base,
                                            std::string* error) {
    ParamSet set = base;
    JsonObjectReader reader(text);
    if (!reader.read_into(set)) {
        if (error) *error = reader.message();
        return std::nullopt;
    }
    return set;
}

}  // namespace sparring
