// Labelled positions as text, in the formats other tuners read and write:
//   fen        "FEN [1.0]"                         result 1.0, 0.5 or 0.0 for white
//   epd        "EPD c9 \"1-0\"; ce 35; hmvc 0; fmvn 1;"  ce (side to move's score) optional
//   fen-score  "FEN | 35 | 1.0"                    score in centipawns for white, then result
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "training/labelled_position.h"

namespace sparring::training {

enum class PositionFormat { Fen, Epd, FenScore };

// Parses "fen", "epd" or "fen-score".
std::optional<PositionFormat> parse_position_format(std::string_view text);
// Returns the name parse_position_format reads.
std::string_view format_name(PositionFormat format);

// Parses one line in any of the formats, told apart by a '|', a '[' or the c9 opcode;
// returns nullopt with *error saying what is wrong.
std::optional<LabelledPosition> parse_labelled_line(std::string_view line, std::string* error);
// Returns one position as a line (without the newline); nullopt with *error when the format
// needs a score the position does not have.
std::optional<std::string> format_labelled_line(const LabelledPosition& position,
                                                PositionFormat format, std::string* error);

// Appends the positions of every line of in to *positions, skipping blank lines and lines
// starting with '#'; stops at the first bad line with *error "SOURCE:LINE: why".
bool read_positions(std::istream& in, std::string_view source,
                    std::vector<LabelledPosition>* positions, std::string* error);
// Opens a file and reads it as read_positions does.
bool load_positions(const std::string& path, std::vector<LabelledPosition>* positions,
                    std::string* error);
// Writes one line per position; false with *error naming the first position that cannot be
// written in the format or the failed write.
bool write_positions(std::ostream& out, std::span<const LabelledPosition> positions,
                     PositionFormat format, std::string* error);

}  // namespace sparring::training
