// PGN movetext's line layout, shared by the PGN writer (match/pgn.cpp) and the stored games'
// decoder (coordinator/storage/pgn_codec.cpp), which must rebuild the writer's text byte for
// byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sparring {

// Longest movetext line: a token that would pass it starts a new line.
inline constexpr std::size_t kPgnLineWidth = 80;

// Appends movetext tokens to a string, one space apart, breaking lines before they pass
// kPgnLineWidth.
class MovetextLayout {
  public:
    explicit MovetextLayout(std::string* out) : out_(out) {}

    // Appends one token, after a space or at the start of a new line.
    void token(std::string_view text) {
        if (column_ > 0 && column_ + 1 + text.size() > kPgnLineWidth) {
            *out_ += '\n';
            column_ = 0;
        } else if (column_ > 0) {
            *out_ += ' ';
            ++column_;
        }
        *out_ += text;
        column_ += text.size();
    }

  private:
    std::string* out_;
    std::size_t column_ = 0;
};

}  // namespace sparring
