// Reading and writing FEN, with the checks that keep impossible positions out of the Board.
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/bitboard.h"
#include "engine/board.h"
#include "engine/lookup_tables.h"

namespace sparring {

namespace {

constexpr std::string_view PIECE_LETTERS = " PNBRQK  pnbrqk";
constexpr int MAX_HALFMOVE_CLOCK = 150;  // the 75-move rule ends every game by then
constexpr int MAX_FULLMOVE_NUMBER = 100000;

// Splits text into its whitespace-separated words.
std::vector<std::string_view> split_words(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        std::size_t start = i;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        if (i > start) words.push_back(text.substr(start, i - start));
    }
    return words;
}

// Parses a whole word as a decimal integer in [low, high].
bool parse_int(std::string_view word, int low, int high, int& value) {
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    return ec == std::errc() && end == word.data() + word.size() && value >= low && value <= high;
}

const char* color_name(Color c) {
    return c == WHITE ? "white" : "black";
}

}  // namespace

// Parses a FEN; on failure returns false, leaves the board unchanged and fills *error
// with a message naming what is wrong.
bool Board::set_fen(std::string_view fen, std::string* error) {
    Board next{Empty{}};
    std::string message;
    if (!next.parse_fen(fen, message)) {
        if (error) *error = "invalid FEN: " + message;
        return false;
    }
    next.psq_table_ = psq_table_;
    next.psq_ = next.compute_psq();
    next.history_ = std::move(history_);
    next.history_.clear();
    *this = std::move(next);
    return true;
}

// Fills this empty board from a FEN, or names the first problem found in error.
// Longer than 80 lines on purpose: the FEN's six fields read in order, each check beside its field.
bool Board::parse_fen(std::string_view fen, std::string& error) {
    const std::vector<std::string_view> fields = split_words(fen);
    if (fields.size() != 6 && fields.size() != 4) {
        error = "it has " + std::to_string(fields.size()) +
                " fields; expected 6 (or 4, without the move clocks)";
        return false;
    }

    int rank = 7, file = 0;
    for (char c : fields[0]) {
        if (c == '/') {
            if (file != 8) {
                error = "rank " + std::to_string(rank + 1) + " has " + std::to_string(file) +
                        " files; expected 8";
                return false;
            }
            if (--rank < 0) {
                error = "the piece placement has more than 8 ranks";
                return false;
            }
            file = 0;
            continue;
        }
        const int width = c >= '1' && c <= '8' ? c - '0' : 1;
        const std::size_t letter = width > 1 || c == '1' ? 0 : PIECE_LETTERS.find(c);
        if (letter == std::string_view::npos) {
            error = std::string("bad piece letter '") + c + "' in rank " + std::to_string(rank + 1);
            return false;
        }
        if (file + width > 8) {
            error = "rank " + std::to_string(rank + 1) + " has more than 8 files";
            return false;
        }
        if (letter) put_piece(Piece(letter), make_square(file, rank));
        file += width;
    }
    if (rank > 0) {
        error = "the piece placement has " + std::to_string(8 - rank) + " ranks; expected 8";
        return false;
    }
    if (file != 8) {
        error = "rank 1 has " + std::to_string(file) + " files; expected 8";
        return false;
    }

    for (Color c : {WHITE, BLACK}) {
        if (popcount(pieces(c, KING)) != 1) {
            error = std::string(color_name(c)) + " has " +
                    std::to_string(popcount(pieces(c, KING))) + " kings; expected exactly one";
            return false;
        }
    }
    if (Bitboard stray = pieces(PAWN) & (RANK_1_BB | RANK_8_BB)) {
        error = "pawn on " + lookup_tables::name_from_index(lsb(stray)) +
                ": pawns cannot stand on the first or last rank";
        return false;
    }

    if (fields[1] != "w" && fields[1] != "b") {
        error = "side to move must be 'w' or 'b', not '" + std::string(fields[1]) + "'";
        return false;
    }
    side_ = fields[1] == "w" ? WHITE : BLACK;

    if (fields[2] != "-") {
        constexpr std::string_view ORDER = "KQkq";
        std::size_t next_allowed = 0;
        for (char c : fields[2]) {
            std::size_t at = ORDER.find(c, next_allowed);
            if (at == std::string_view::npos) {
                error = "bad castling field '" + std::string(fields[2]) +
                        "'; expected '-' or letters of KQkq in that order";
                return false;
            }
            next_allowed = at + 1;
            const Color c_side = at < 2 ? WHITE : BLACK;
            const Square king_home = c_side == WHITE ? SQ_E1 : SQ_E8;
            const Square rook_home = make_square(at % 2 == 0 ? 7 : 0, c_side == WHITE ? 0 : 7);
            if (squares_[king_home] != make_piece(c_side, KING) ||
                squares_[rook_home] != make_piece(c_side, ROOK)) {
                error = std::string("castling right '") + c + "' needs the " + color_name(c_side) +
                        " king on " + lookup_tables::name_from_index(king_home) + " and a " +
                        color_name(c_side) + " rook on " +
                        lookup_tables::name_from_index(rook_home);
                return false;
            }
            castling_ |= std::uint8_t(1 << at);
        }
    }

    Square ep = SQ_NONE;
    if (fields[3] != "-") {
        std::optional<Square> target = lookup_tables::index_from_name(fields[3]);
        if (!target || fields[3][0] < 'a') {  // FEN writes files in lower case
            error = "en passant field '" + std::string(fields[3]) + "' is not '-' or a square";
            return false;
        }
        const int expected_rank = side_ == WHITE ? 5 : 2;
        if (rank_of(*target) != expected_rank) {
            error = "en passant square " + std::string(fields[3]) + " is on the wrong rank for " +
                    color_name(side_) + " to move (expected rank " +
                    std::to_string(expected_rank + 1) + ")";
            return false;
        }
        const Square pushed = Square(*target ^ 8);
        const Square origin = Square(side_ == WHITE ? *target + 8 : *target - 8);
        if (squares_[pushed] != make_piece(~side_, PAWN) || squares_[*target] != NO_PIECE ||
            squares_[origin] != NO_PIECE) {
            error = "en passant square " + std::string(fields[3]) + " does not lie behind a " +
                    color_name(~side_) + " pawn that could just have moved two squares";
            return false;
        }
        ep = *target;
    }

    int halfmove = 0, fullmove = 1;
    if (fields.size() == 6) {
        if (!parse_int(fields[4], 0, MAX_HALFMOVE_CLOCK, halfmove)) {
            error = "halfmove clock '" + std::string(fields[4]) + "' is not an integer from 0 to " +
                    std::to_string(MAX_HALFMOVE_CLOCK);
            return false;
        }
        if (!parse_int(fields[5], 1, MAX_FULLMOVE_NUMBER, fullmove)) {
            error = "fullmove number '" + std::string(fields[5]) +
                    "' is not an integer from 1 to " + std::to_string(MAX_FULLMOVE_NUMBER);
            return false;
        }
    }
    halfmove_clock_ = halfmove;
    game_ply_ = 2 * (fullmove - 1) + (side_ == BLACK);

    if (attackers_to(king_square(~side_), all_pieces()) & pieces(side_)) {
        error = std::string("the side not to move (") + color_name(~side_) + ") is in check";
        return false;
    }
    update_checkers();
    if (ep != SQ_NONE && en_passant_capturable(ep)) ep_square_ = ep;
    hash_ = compute_hash();
    return true;
}

// Returns the position as FEN.
std::string Board::fen() const {
    std::ostringstream out;
    for (int rank = 7; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            Piece p = squares_[make_square(file, rank)];
            if (p == NO_PIECE) {
                ++empty;
                continue;
            }
            if (empty) out << empty;
            empty = 0;
            out << PIECE_LETTERS[p];
        }
        if (empty) out << empty;
        if (rank) out << '/';
    }
    out << (side_ == WHITE ? " w " : " b ");
    if (!castling_) out << '-';
    for (int i = 0; i < 4; ++i)
        if (castling_ & (1 << i)) out << "KQkq"[i];
    out << ' ' << (ep_square_ == SQ_NONE ? "-" : lookup_tables::name_from_index(ep_square_));
    out << ' ' << halfmove_clock_ << ' ' << fullmove_number();
    return out.str();
}

}  // namespace sparring
