// The mailbox generator: offsets walked until a non-empty cell (the sentinel border stops
// sliders), then every pseudo-legal move made on a copy and kept if the own king is safe.
#include "mailbox/mailbox.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sstream>

namespace sparring::mailbox {
namespace {

constexpr int KNIGHT_STEPS[] = {-25, -23, -14, -10, 10, 14, 23, 25};
constexpr int KING_STEPS[] = {-13, -12, -11, -1, 1, 11, 12, 13};
constexpr int BISHOP_STEPS[] = {-13, -11, 11, 13};
constexpr int ROOK_STEPS[] = {-12, -1, 1, 12};
constexpr PieceCode PROMOTIONS[] = {QUEEN, ROOK, BISHOP, KNIGHT};

constexpr int A1 = mailbox_square(0, 0);
constexpr int E1 = mailbox_square(4, 0);
constexpr int H1 = mailbox_square(7, 0);
constexpr int A8 = mailbox_square(0, 7);
constexpr int E8 = mailbox_square(4, 7);
constexpr int H8 = mailbox_square(7, 7);

// Returns the cell value of a piece of the given colour.
std::int8_t colored(PieceCode code, bool white) {
    return static_cast<std::int8_t>(white ? code : -code);
}

// Returns whether a cell holds a piece of the given colour.
bool belongs_to(std::int8_t cell, bool white) {
    return white ? cell > 0 && cell != OFF_BOARD : cell < 0;
}

// Returns the type code of a cell's piece, whatever its colour.
PieceCode code_of(std::int8_t cell) {
    return PieceCode(cell < 0 ? -cell : cell);
}

// Returns the direction a pawn of the given colour moves in.
int pawn_step(bool white) {
    return white ? WIDTH : -WIDTH;
}

// Returns the FEN letter of a piece cell.
char letter_of(std::int8_t cell) {
    char letter = '?';
    switch (code_of(cell)) {
        case PAWN:
            letter = 'p';
            break;
        case KNIGHT:
            letter = 'n';
            break;
        case BISHOP:
            letter = 'b';
            break;
        case ROOK:
            letter = 'r';
            break;
        case QUEEN:
            letter = 'q';
            break;
        case KING:
            letter = 'k';
            break;
        default:
            break;
    }
    return cell > 0 ? static_cast<char>(letter - 'a' + 'A') : letter;
}

// Returns the cell value of a FEN piece letter, EMPTY if it is not one.
std::int8_t cell_of(char letter) {
    const bool white = letter >= 'A' && letter <= 'Z';
    const char lower = white ? static_cast<char>(letter - 'A' + 'a') : letter;
    switch (lower) {
        case 'p':
            return colored(PAWN, white);
        case 'n':
            return colored(KNIGHT, white);
        case 'b':
            return colored(BISHOP, white);
        case 'r':
            return colored(ROOK, white);
        case 'q':
            return colored(QUEEN, white);
        case 'k':
            return colored(KING, white);
        default:
            return EMPTY;
    }
}

// Returns the square of the king of the given colour, NO_SQUARE if there is none.
int king_square(const Position& pos, bool white) {
    for (int sq = 0; sq < SQUARE_COUNT; ++sq)
        if (pos.cells[sq] == colored(KING, white)) return sq;
    return NO_SQUARE;
}

// Plays a pseudo-legal move, marking any double push's skipped square as en passant target.
Position apply(const Position& pos, const Move& move) {
    const bool white = pos.white_to_move;
    const std::int8_t piece = pos.cells[move.from];
    const PieceCode code = code_of(piece);
    Position next = pos;
    bool capture = pos.cells[move.to] != EMPTY;

    next.cells[move.to] = move.promotion != EMPTY ? colored(move.promotion, white) : piece;
    next.cells[move.from] = EMPTY;
    next.en_passant = NO_SQUARE;
    if (code == PAWN && move.to == pos.en_passant && move.to % WIDTH != move.from % WIDTH) {
        next.cells[move.to - pawn_step(white)] = EMPTY;
        capture = true;
    }
    if (code == PAWN && std::abs(move.to - move.from) == 2 * WIDTH)
        next.en_passant = (move.from + move.to) / 2;
    if (code == KING && std::abs(move.to - move.from) == 2) {
        const bool kingside = move.to > move.from;
        const int rook_from = kingside ? move.from + 3 : move.from - 4;
        const int rook_to = kingside ? move.from + 1 : move.from - 1;
        next.cells[rook_to] = next.cells[rook_from];
        next.cells[rook_from] = EMPTY;
    }
    for (int sq : {move.from, move.to}) {
        if (sq == E1) next.castling &= ~(WHITE_KINGSIDE | WHITE_QUEENSIDE);
        if (sq == H1) next.castling &= ~WHITE_KINGSIDE;
        if (sq == A1) next.castling &= ~WHITE_QUEENSIDE;
        if (sq == E8) next.castling &= ~(BLACK_KINGSIDE | BLACK_QUEENSIDE);
        if (sq == H8) next.castling &= ~BLACK_KINGSIDE;
        if (sq == A8) next.castling &= ~BLACK_QUEENSIDE;
    }
    next.halfmove_clock = code == PAWN || capture ? 0 : pos.halfmove_clock + 1;
    if (!white) ++next.fullmove_number;
    next.white_to_move = !white;
    return next;
}

// Returns whether the side that just moved left its own king attacked.
bool left_king_attacked(const Position& after) {
    const bool mover = !after.white_to_move;
    return is_attacked(after, king_square(after, mover), after.white_to_move);
}

// Returns whether the side to move has a legal en passant capture onto pos.en_passant.
bool has_legal_en_passant(const Position& pos) {
    if (pos.en_passant == NO_SQUARE) return false;
    const bool white = pos.white_to_move;
    for (int side : {-1, 1}) {
        const int from = pos.en_passant - pawn_step(white) + side;
        if (pos.cells[from] == colored(PAWN, white) &&
            !left_king_attacked(apply(pos, {from, pos.en_passant, EMPTY})))
            return true;
    }
    return false;
}

// Adds a pawn move, as the four promotions when it reaches the last rank.
void add_pawn_move(std::vector<Move>& moves, int from, int to) {
    const int rank = to / WIDTH - 2;
    if (rank == 0 || rank == 7)
        for (PieceCode promotion : PROMOTIONS) moves.push_back({from, to, promotion});
    else
        moves.push_back({from, to, EMPTY});
}

// Adds the pawn moves from sq: single and double pushes, captures and en passant.
void add_pawn_moves(const Position& pos, int sq, std::vector<Move>& moves) {
    const bool white = pos.white_to_move;
    const int step = pawn_step(white);
    const int start_rank = white ? 1 : 6;
    if (pos.cells[sq + step] == EMPTY) {
        add_pawn_move(moves, sq, sq + step);
        if (sq / WIDTH - 2 == start_rank && pos.cells[sq + 2 * step] == EMPTY)
            moves.push_back({sq, sq + 2 * step, EMPTY});
    }
    for (int side : {-1, 1}) {
        const int to = sq + step + side;
        if (belongs_to(pos.cells[to], !white) || to == pos.en_passant) add_pawn_move(moves, sq, to);
    }
}

// Adds the moves of a piece stepping or sliding along the given offsets.
template <std::size_t N>
void add_piece_moves(const Position& pos, int sq, const int (&steps)[N], bool slides,
                     std::vector<Move>& moves) {
    for (int step : steps) {
        for (int to = sq + step;; to += step) {
            const std::int8_t cell = pos.cells[to];
            if (cell == EMPTY || belongs_to(cell, !pos.white_to_move))
                moves.push_back({sq, to, EMPTY});
            if (cell != EMPTY || !slides) break;
        }
    }
}

// Adds the castling moves: rights kept, king and rook home, squares between empty, and
// the king neither in check nor passing through or landing on an attacked square.
void add_castling_moves(const Position& pos, std::vector<Move>& moves) {
    const bool white = pos.white_to_move;
    const int king = white ? E1 : E8;
    const std::uint8_t kingside = white ? WHITE_KINGSIDE : BLACK_KINGSIDE;
    const std::uint8_t queenside = white ? WHITE_QUEENSIDE : BLACK_QUEENSIDE;
    const std::int8_t rook = colored(ROOK, white);
    if (pos.cells[king] != colored(KING, white) || is_attacked(pos, king, !white)) return;
    if ((pos.castling & kingside) && pos.cells[king + 3] == rook && pos.cells[king + 1] == EMPTY &&
        pos.cells[king + 2] == EMPTY && !is_attacked(pos, king + 1, !white) &&
        !is_attacked(pos, king + 2, !white))
        moves.push_back({king, king + 2, EMPTY});
    if ((pos.castling & queenside) && pos.cells[king - 4] == rook && pos.cells[king - 1] == EMPTY &&
        pos.cells[king - 2] == EMPTY && pos.cells[king - 3] == EMPTY &&
        !is_attacked(pos, king - 1, !white) && !is_attacked(pos, king - 2, !white))
        moves.push_back({king, king - 2, EMPTY});
}

// Returns every pseudo-legal move of the side to move.
std::vector<Move> pseudo_legal_moves(const Position& pos) {
    std::vector<Move> moves;
    for (int sq = 0; sq < SQUARE_COUNT; ++sq) {
        if (!belongs_to(pos.cells[sq], pos.white_to_move)) continue;
        switch (code_of(pos.cells[sq])) {
            case PAWN:
                add_pawn_moves(pos, sq, moves);
                break;
            case KNIGHT:
                add_piece_moves(pos, sq, KNIGHT_STEPS, false, moves);
                break;
            case BISHOP:
                add_piece_moves(pos, sq, BISHOP_STEPS, true, moves);
                break;
            case ROOK:
                add_piece_moves(pos, sq, ROOK_STEPS, true, moves);
                break;
            case QUEEN:
                add_piece_moves(pos, sq, KING_STEPS, true, moves);
                break;
            case KING:
                add_piece_moves(pos, sq, KING_STEPS, false, moves);
                break;
            default:
                break;
        }
    }
    add_castling_moves(pos, moves);
    return moves;
}

// Fills the board cells from FEN's piece placement field; returns an error or "".
std::string parse_placement(std::string_view field, Position& pos) {
    int rank = 7;
    int file = 0;
    for (char c : field) {
        if (c == '/') {
            if (file != 8) return "rank " + std::to_string(rank + 1) + " does not have 8 files";
            if (--rank < 0) return "more than 8 ranks";
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) return "rank " + std::to_string(rank + 1) + " has more than 8 files";
        } else if (std::int8_t cell = cell_of(c); cell != EMPTY) {
            if (file >= 8) return "rank " + std::to_string(rank + 1) + " has more than 8 files";
            if (code_of(cell) == PAWN && (rank == 0 || rank == 7))
                return "pawn on the first or last rank";
            pos.cells[mailbox_square(file++, rank)] = cell;
        } else {
            return std::string("bad piece letter '") + c + "'";
        }
    }
    if (rank != 0 || file != 8) return "piece placement does not have 8 ranks of 8 files";
    for (bool white : {true, false}) {
        const auto kings = std::count(pos.cells.begin(), pos.cells.end(), colored(KING, white));
        if (kings != 1)
            return std::string("not exactly one ") + (white ? "white" : "black") + " king";
    }
    return "";
}

// Reads the castling field into pos.castling; returns an error or "".
std::string parse_castling(std::string_view field, Position& pos) {
    if (field == "-") return "";
    for (char c : field) {
        const std::string_view letters = "KQkq";
        const auto index = letters.find(c);
        if (index == std::string_view::npos || (pos.castling >> index) & 1)
            return "bad castling field '" + std::string(field) + "'";
        pos.castling |= static_cast<std::uint8_t>(1 << index);
    }
    return "";
}

// Reads the en passant field; keeps the target only if a legal capture onto it exists.
std::string parse_en_passant(std::string_view field, Position& pos) {
    if (field == "-") return "";
    const int target = square_from_name(field);
    const bool white = pos.white_to_move;
    if (target == NO_SQUARE || target / WIDTH - 2 != (white ? 5 : 2))
        return "bad en passant field '" + std::string(field) + "'";
    const int pushed = target - pawn_step(white);
    if (pos.cells[pushed] != colored(PAWN, !white) || pos.cells[target] != EMPTY ||
        pos.cells[target + pawn_step(white)] != EMPTY)
        return "en passant square '" + std::string(field) +
               "' without a pawn that just moved two squares";
    pos.en_passant = target;
    if (!has_legal_en_passant(pos)) pos.en_passant = NO_SQUARE;
    return "";
}

// Reads a non-negative decimal number, returning false if the text is not one.
bool parse_number(std::string_view text, int& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && value >= 0;
}

// Parses a FEN into pos; returns an error or "".
std::string parse_fields(std::string_view fen, Position& pos) {
    std::istringstream stream{std::string(fen)};
    std::vector<std::string> fields;
    for (std::string field; stream >> field;) fields.push_back(field);
    if (fields.size() < 4 || fields.size() > 6)
        return "expected 4 to 6 fields, got " + std::to_string(fields.size());
    for (int sq = 0; sq < SQUARE_COUNT; ++sq) pos.cells[sq] = is_on_board(sq) ? EMPTY : OFF_BOARD;
    if (std::string error = parse_placement(fields[0], pos); !error.empty()) return error;
    if (fields[1] != "w" && fields[1] != "b") return "bad side to move '" + fields[1] + "'";
    pos.white_to_move = fields[1] == "w";
    if (std::string error = parse_castling(fields[2], pos); !error.empty()) return error;
    if (is_attacked(pos, king_square(pos, !pos.white_to_move), pos.white_to_move))
        return "the side not to move is in check";
    if (std::string error = parse_en_passant(fields[3], pos); !error.empty()) return error;
    if (fields.size() > 4 && !parse_number(fields[4], pos.halfmove_clock))
        return "bad half-move clock '" + fields[4] + "'";
    if (fields.size() > 5 &&
        (!parse_number(fields[5], pos.fullmove_number) || pos.fullmove_number == 0))
        return "bad full-move number '" + fields[5] + "'";
    return "";
}

}  // namespace

std::string square_name(int sq) {
    if (!is_on_board(sq)) return "-";
    const int index = to_bitboard_index(sq);
    return {static_cast<char>('a' + index % 8), static_cast<char>('1' + index / 8)};
}

int square_from_name(std::string_view name) {
    if (name.size() != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8')
        return NO_SQUARE;
    return mailbox_square(name[0] - 'a', name[1] - '1');
}

std::optional<Position> parse_fen(std::string_view fen, std::string* error) {
    Position pos;
    std::string message = parse_fields(fen, pos);
    if (message.empty()) return pos;
    if (error) *error = message;
    return std::nullopt;
}

std::string to_fen(const Position& pos) {
    std::string fen;
    for (int rank = 7; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            const std::int8_t cell = pos.cells[mailbox_square(file, rank)];
            if (cell == EMPTY) {
                ++empty;
                continue;
            }
            if (empty) fen += static_cast<char>('0' + empty);
            empty = 0;
            fen += letter_of(cell);
        }
        if (empty) fen += static_cast<char>('0' + empty);
        if (rank) fen += '/';
    }
    fen += pos.white_to_move ? " w " : " b ";
    const std::string_view letters = "KQkq";
    for (int i = 0; i < 4; ++i)
        if ((pos.castling >> i) & 1) fen += letters[i];
    if (!pos.castling) fen += '-';
    fen += ' ' + square_name(pos.en_passant) + ' ' + std::to_string(pos.halfmove_clock) + ' ' +
           std::to_string(pos.fullmove_number);
    return fen;
}

bool is_attacked(const Position& pos, int sq, bool by_white) {
    const int pawn_from = sq - pawn_step(by_white);
    if (pos.cells[pawn_from - 1] == colored(PAWN, by_white) ||
        pos.cells[pawn_from + 1] == colored(PAWN, by_white))
        return true;
    for (int step : KNIGHT_STEPS)
        if (pos.cells[sq + step] == colored(KNIGHT, by_white)) return true;
    for (int step : KING_STEPS)
        if (pos.cells[sq + step] == colored(KING, by_white)) return true;
    for (const auto& [steps, slider] :
         {std::pair{&BISHOP_STEPS, BISHOP}, std::pair{&ROOK_STEPS, ROOK}}) {
        for (int step : *steps) {
            int to = sq + step;
            while (pos.cells[to] == EMPTY) to += step;
            if (pos.cells[to] == colored(slider, by_white) ||
                pos.cells[to] == colored(QUEEN, by_white))
                return true;
        }
    }
    return false;
}

bool in_check(const Position& pos) {
    return is_attacked(pos, king_square(pos, pos.white_to_move), !pos.white_to_move);
}

std::vector<Move> legal_moves(const Position& pos) {
    std::vector<Move> moves = pseudo_legal_moves(pos);
    std::erase_if(moves, [&](const Move& move) { return left_king_attacked(apply(pos, move)); });
    return moves;
}

Position make_move(const Position& pos, const Move& move) {
    Position next = apply(pos, move);
    if (!has_legal_en_passant(next)) next.en_passant = NO_SQUARE;
    return next;
}

std::string to_uci(const Move& move) {
    std::string text = square_name(move.from) + square_name(move.to);
    if (move.promotion != EMPTY) text += letter_of(colored(move.promotion, false));
    return text;
}

std::vector<std::string> legal_moves_uci(const Position& pos) {
    std::vector<std::string> texts;
    for (const Move& move : legal_moves(pos)) texts.push_back(to_uci(move));
    std::sort(texts.begin(), texts.end());
    return texts;
}

std::uint64_t perft(const Position& pos, int depth) {
    if (depth == 0) return 1;
    const std::vector<Move> moves = legal_moves(pos);
    if (depth == 1) return moves.size();
    std::uint64_t nodes = 0;
    for (const Move& move : moves) nodes += perft(make_move(pos, move), depth - 1);
    return nodes;
}

}  // namespace sparring::mailbox
