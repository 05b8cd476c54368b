#include "training/position_io.h"

#include <charconv>
#include <fstream>
#include <limits>
#include <utility>

namespace sparring::training {

namespace {

// An EPD operation: its opcode and operands (quoted strings without their quotes).
struct EpdOperation {
    std::string_view opcode;
    std::vector<std::string_view> operands;
};

// Returns text without the spaces, tabs and carriage returns around it.
std::string_view trim(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Parses a whole string as an integer in [min, max].
std::optional<int> parse_int(std::string_view text, int min, int max) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
        return std::nullopt;
    return value;
}

// Parses a result written as 1.0/0.5/0.0 (or 1, 0.50, ...) or as 1-0, 1/2-1/2, 0-1.
std::optional<Outcome> parse_result(std::string_view text) {
    if (const std::optional<Outcome> pgn = parse_pgn_result(text)) return pgn;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    if (value == 1) return Outcome::Win;
    if (value == 0.5) return Outcome::Draw;
    if (value == 0) return Outcome::Loss;
    return std::nullopt;
}

// Returns the result as 1.0, 0.5 or 0.0.
std::string_view decimal_result(Outcome result) {
    switch (result) {
        case Outcome::Win:
            return "1.0";
        case Outcome::Draw:
            return "0.5";
        case Outcome::Loss:
            return "0.0";
    }
    return "";
}

// Parses a FEN and packs it into *position.
bool parse_position(std::string_view fen, LabelledPosition* position, std::string* error) {
    Board board;
    if (!board.set_fen(fen, error)) return false;
    auto packed = pack_position(board, error);
    if (!packed) return false;
    position->position = *packed;
    return true;
}

// Parses the result of a line, naming the bad text in *error.
bool read_result(std::string_view text, LabelledPosition* position, std::string* error) {
    const auto result = parse_result(text);
    if (!result) {
        *error =
            "bad result '" + std::string(text) + "'; expected 1.0, 0.5, 0.0, 1-0, 1/2-1/2 or 0-1";
        return false;
    }
    position->result = *result;
    return true;
}

// Parses a centipawn score whose white's view fits the stored 16 bits, all of them: white's
// is the value negated when negate is set (an EPD ce counts for the side to move).
bool read_score(std::string_view text, bool negate, std::int16_t* score, std::string* error) {
    constexpr int low = std::numeric_limits<std::int16_t>::min();
    constexpr int high = std::numeric_limits<std::int16_t>::max();
    const int min = negate ? -high : low;
    const int max = negate ? -low : high;
    const auto value = parse_int(text, min, max);
    if (!value) {
        *error = "bad score '" + std::string(text) + "'; expected an integer from " +
                 std::to_string(min) + " to " + std::to_string(max);
        return false;
    }
    *score = static_cast<std::int16_t>(negate ? -*value : *value);
    return true;
}

// Parses "FEN | score | result".
bool parse_score_line(std::string_view line, LabelledPosition* position, std::string* error) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t bar = line.find('|', start);
        parts.push_back(trim(line.substr(start, bar - start)));
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    if (parts.size() != 3) {
        *error = "expected 'FEN | score | result', found " + std::to_string(parts.size()) +
                 " fields separated by '|'";
        return false;
    }
    std::int16_t score = 0;
    if (!parse_position(parts[0], position, error) || !read_score(parts[1], false, &score, error) ||
        !read_result(parts[2], position, error))
        return false;
    position->score = score;
    return true;
}

// Parses "FEN [result]".
bool parse_bracket_line(std::string_view line, LabelledPosition* position, std::string* error) {
    const std::size_t open = line.rfind('[');
    const std::size_t close = line.find(']', open);
    if (close == std::string_view::npos) {
        *error = "the result after '[' is not closed by ']'";
        return false;
    }
    if (!trim(line.substr(close + 1)).empty()) {
        *error = "unexpected text '" + std::string(trim(line.substr(close + 1))) + "' after ']'";
        return false;
    }
    return parse_position(trim(line.substr(0, open)), position, error) &&
           read_result(trim(line.substr(open + 1, close - open - 1)), position, error);
}

// Splits EPD operations ("opcode operand ...;") into *operations.
bool split_operations(std::string_view text, std::vector<EpdOperation>* operations,
                      std::string* error) {
    std::size_t i = 0;
    auto skip_spaces = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    for (skip_spaces(); i < text.size(); skip_spaces()) {
        EpdOperation op;
        const std::size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != ';') ++i;
        op.opcode = text.substr(start, i - start);
        for (skip_spaces(); i < text.size() && text[i] != ';'; skip_spaces()) {
            if (text[i] == '"') {
                const std::size_t end = text.find('"', i + 1);
                if (end == std::string_view::npos) {
                    *error =
                        "unterminated string in EPD operation '" + std::string(op.opcode) + "'";
                    return false;
                }
                op.operands.push_back(text.substr(i + 1, end - i - 1));
                i = end + 1;
            } else {
                const std::size_t from = i;
                while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != ';') ++i;
                op.operands.push_back(text.substr(from, i - from));
            }
        }
        if (i == text.size()) {
            *error = "EPD operation '" + std::string(op.opcode) + "' is not ended by ';'";
            return false;
        }
        ++i;
        if (op.opcode.empty()) {
            *error = "empty EPD operation before ';'";
            return false;
        }
        operations->push_back(std::move(op));
    }
    return true;
}

// Sets *operand to the one operand of the operation named opcode, if it is there; an
// operation given twice or with another number of operands is an error.
bool find_operand(const std::vector<EpdOperation>& operations, std::string_view opcode,
                  std::optional<std::string_view>* operand, std::string* error) {
    for (const EpdOperation& op : operations) {
        if (op.opcode != opcode) continue;
        if (*operand) {
            *error = "EPD operation '" + std::string(opcode) + "' is given twice";
            return false;
        }
        if (op.operands.size() != 1) {
            *error = "EPD operation '" + std::string(opcode) + "' needs one operand, has " +
                     std::to_string(op.operands.size());
            return false;
        }
        *operand = op.operands[0];
    }
    return true;
}

// Parses "EPD c9 \"result\"; [ce N;] [hmvc N;] [fmvn N;] ..." (other operations ignored).
bool parse_epd_line(std::string_view line, LabelledPosition* position, std::string* error) {
    std::size_t i = 0;
    std::string fen;
    for (int field = 0; field < 4; ++field) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (start == i) {
            *error = "expected 'FEN [1.0]', 'FEN | score | result' or an EPD line with a c9 result";
            return false;
        }
        if (field) fen += ' ';
        fen += line.substr(start, i - start);
    }
    const std::string_view rest = line.substr(i);
    if (rest.find("c9") == std::string_view::npos) {
        *error = "no result: expected 'FEN [1.0]', 'FEN | score | result' or an EPD c9 operation";
        return false;
    }
    std::vector<EpdOperation> operations;
    std::optional<std::string_view> c9, ce, hmvc, fmvn;
    if (!split_operations(rest, &operations, error) ||
        !find_operand(operations, "c9", &c9, error) ||
        !find_operand(operations, "ce", &ce, error) ||
        !find_operand(operations, "hmvc", &hmvc, error) ||
        !find_operand(operations, "fmvn", &fmvn, error))
        return false;
    if (!c9) {
        *error = "no EPD c9 operation with the result";
        return false;
    }
    fen += ' ' + std::string(hmvc.value_or("0")) + ' ' + std::string(fmvn.value_or("1"));
    if (!parse_position(fen, position, error) || !read_result(*c9, position, error)) return false;
    if (ce) {
        const bool black_to_move = position->position.bytes[24] & 1;
        std::int16_t score = 0;
        if (!read_score(*ce, black_to_move, &score, error)) return false;
        position->score = score;
    }
    return true;
}

}  // namespace

std::optional<PositionFormat> parse_position_format(std::string_view text) {
    if (text == "fen") return PositionFormat::Fen;
    if (text == "epd") return PositionFormat::Epd;
    if (text == "fen-score") return PositionFormat::FenScore;
    return std::nullopt;
}

std::string_view format_name(PositionFormat format) {
    switch (format) {
        case PositionFormat::Fen:
            return "fen";
        case PositionFormat::Epd:
            return "epd";
        case PositionFormat::FenScore:
            return "fen-score";
    }
    return "";
}

std::optional<LabelledPosition> parse_labelled_line(std::string_view line, std::string* error) {
    line = trim(line);
    LabelledPosition position;
    std::string why;
    bool ok = false;
    if (line.find('|') != std::string_view::npos)
        ok = parse_score_line(line, &position, &why);
    else if (line.find('[') != std::string_view::npos)
        ok = parse_bracket_line(line, &position, &why);
    else
        ok = parse_epd_line(line, &position, &why);
    if (!ok) {
        if (error) *error = why;
        return std::nullopt;
    }
    return position;
}

std::optional<std::string> format_labelled_line(const LabelledPosition& position,
                                                PositionFormat format, std::string* error) {
    Board board;
    std::string why;
    if (!unpack_position(position.position, &board, &why)) {
        if (error) *error = why;
        return std::nullopt;
    }
    std::string line = board.fen();
    switch (format) {
        case PositionFormat::Fen:
            return line + " [" + std::string(decimal_result(position.result)) + "]";
        case PositionFormat::FenScore:
            if (!position.score) {
                if (error) *error = "the position has no score for the fen-score format";
                return std::nullopt;
            }
            return line + " | " + std::to_string(*position.score) + " | " +
                   std::string(decimal_result(position.result));
        case PositionFormat::Epd:
            break;
    }
    std::string epd = line.substr(0, line.rfind(' ', line.rfind(' ') - 1));
    epd += " c9 \"" + std::string(pgn_result(position.result)) + "\";";
    if (position.score)
        epd += " ce " + std::to_string(board.side() == WHITE ? *position.score : -*position.score) +
               ";";
    epd += " hmvc " + std::to_string(board.halfmove_clock()) + "; fmvn " +
           std::to_string(board.fullmove_number()) + ";";
    return epd;
}

bool read_positions(std::istream& in, std::string_view source,
                    std::vector<LabelledPosition>* positions, std::string* error) {
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const std::string_view text = trim(line);
        if (text.empty() || text.front() == '#') continue;
        std::string why;
        auto position = parse_labelled_line(text, &why);
        if (!position) {
            if (error) *error = std::string(source) + ":" + std::to_string(number) + ": " + why;
            return false;
        }
        positions->push_back(*position);
    }
    if (in.bad()) {
        if (error) *error = std::string(source) + ": read error";
        return false;
    }
    return true;
}

bool load_positions(const std::string& path, std::vector<LabelledPosition>* positions,
                    std::string* error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = "cannot open '" + path + "'";
        return false;
    }
    return read_positions(in, path, positions, error);
}

bool write_positions(std::ostream& out, std::span<const LabelledPosition> positions,
                     PositionFormat format, std::string* error) {
    for (std::size_t i = 0; i < positions.size(); ++i) {
        std::string why;
        const auto line = format_labelled_line(positions[i], format, &why);
        if (!line) {
            if (error) *error = "position " + std::to_string(i + 1) + ": " + why;
            return false;
        }
        out << *line << '\n';
    }
    out.flush();
    if (!out) {
        if (error) *error = "write failed";
        return false;
    }
    return true;
}

}  // namespace sparring::training
