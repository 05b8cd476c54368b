// UCI and SAN move notation, always checked against the position's legal moves.
#include "engine/notation.h"

#include <cctype>

#include "engine/bitboard.h"
#include "engine/lookup_tables.h"
#include "engine/movegen.h"

namespace sparring {

namespace {

constexpr std::string_view SAN_PIECES = "  NBRQK";     // indexed by PieceType
constexpr std::string_view UCI_PROMOTIONS = "  nbrq";  // indexed by PieceType

// Returns the piece kind written as an upper-case SAN letter (N, B, R, Q, K), or none.
PieceType san_piece(char c) {
    std::size_t at = c == ' ' ? std::string_view::npos : SAN_PIECES.find(c);
    return at == std::string_view::npos ? NO_PIECE_TYPE : PieceType(at);
}

// Tells whether c names a file (a-h) or a rank (1-8).
bool is_file(char c) {
    return c >= 'a' && c <= 'h';
}
bool is_rank(char c) {
    return c >= '1' && c <= '8';
}

}  // namespace

// Returns the move in UCI notation ("0000" for Move::none()).
std::string to_uci(Move m) {
    if (m.is_none()) return "0000";
    std::string text =
        lookup_tables::name_from_index(m.from()) + lookup_tables::name_from_index(m.to());
    if (m.kind() == Move::PROMOTION) text += UCI_PROMOTIONS[m.promotion()];
    return text;
}

// Returns the legal move written in UCI notation, or Move::none() if it is not legal here.
Move parse_uci(const Board& board, std::string_view text) {
    if (text.size() != 4 && text.size() != 5) return Move::none();
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (Move m : MoveList<GenType::All>(board))
        if (to_uci(m) == lower) return m;
    return Move::none();
}

// Returns the legal move m in SAN, with + or # when it gives check or mate (an empty
// string when m is not legal here).
std::string to_san(const Board& board, Move m) {
    const MoveList<GenType::All> legal(board);
    if (!legal.contains(m)) return {};
    return to_san(board, legal, m);
}

std::string to_san(const Board& board, const MoveList<>& legal, Move m) {
    const Square from = m.from(), to = m.to();
    const PieceType piece = type_of(board.piece_on(from));
    std::string text;

    if (m.kind() == Move::CASTLING) {
        text = to > from ? "O-O" : "O-O-O";
    } else {
        if (piece == PAWN) {
            if (board.is_capture(m)) text += char('a' + file_of(from));
        } else {
            text += SAN_PIECES[piece];
            bool rivals = false, same_file = false, same_rank = false;
            for (Move other : legal) {
                if (other.to() != to || other.from() == from ||
                    type_of(board.piece_on(other.from())) != piece)
                    continue;
                rivals = true;
                same_file |= file_of(other.from()) == file_of(from);
                same_rank |= rank_of(other.from()) == rank_of(from);
            }
            if (rivals && (!same_file || same_rank)) text += char('a' + file_of(from));
            if (rivals && same_file) text += char('1' + rank_of(from));
        }
        if (board.is_capture(m)) text += 'x';
        text += lookup_tables::name_from_index(to);
        if (m.kind() == Move::PROMOTION) {
            text += '=';
            text += SAN_PIECES[m.promotion()];
        }
    }

    if (board.gives_check(m)) {
        Board after = board;
        after.do_move(m);
        text += MoveList<GenType::All>(after).size() == 0 ? '#' : '+';
    }
    return text;
}

// Returns the legal move written in SAN (check marks and annotations tolerated),
// or Move::none() if it is not legal or ambiguous here.
Move parse_san(const Board& board, std::string_view text) {
    while (!text.empty() && std::string_view("+#!?").find(text.back()) != std::string_view::npos)
        text.remove_suffix(1);

    const MoveList<GenType::All> legal(board);
    if (text == "O-O" || text == "0-0" || text == "O-O-O" || text == "0-0-0") {
        for (Move m : legal)
            if (m.kind() == Move::CASTLING && (m.to() > m.from()) == (text.size() == 3)) return m;
        return Move::none();
    }

    PieceType piece = PAWN;
    if (!text.empty() && san_piece(text.front()) != NO_PIECE_TYPE) {
        piece = san_piece(text.front());
        text.remove_prefix(1);
    }
    PieceType promotion = NO_PIECE_TYPE;
    if (piece == PAWN && text.size() >= 3) {
        char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
        bool marked = text[text.size() - 2] == '=';
        if (marked || !is_rank(text.back())) {
            promotion = san_piece(last);
            if (promotion == NO_PIECE_TYPE || promotion == KING) return Move::none();
            text.remove_suffix(marked ? 2 : 1);
        }
    }
    if (text.size() < 2 || !is_file(text[text.size() - 2]) || !is_rank(text.back()))
        return Move::none();
    const Square to = make_square(text[text.size() - 2] - 'a', text.back() - '1');
    text.remove_suffix(2);

    const bool capture = !text.empty() && text.back() == 'x';
    if (capture) text.remove_suffix(1);
    int from_file = -1, from_rank = -1;
    if (!text.empty() && is_file(text.front())) {
        from_file = text.front() - 'a';
        text.remove_prefix(1);
    }
    if (!text.empty() && is_rank(text.front())) {
        from_rank = text.front() - '1';
        text.remove_prefix(1);
    }
    if (!text.empty()) return Move::none();
    if (piece == PAWN && from_file < 0) from_file = file_of(to);  // a pawn push stays on its file

    Move found = Move::none();
    for (Move m : legal) {
        if (m.to() != to || m.kind() == Move::CASTLING ||
            type_of(board.piece_on(m.from())) != piece || m.promotion() != promotion ||
            (from_file >= 0 && file_of(m.from()) != from_file) ||
            (from_rank >= 0 && rank_of(m.from()) != from_rank) || (capture && !board.is_capture(m)))
            continue;
        if (found) return Move::none();  // ambiguous
        found = m;
    }
    return found;
}

}  // namespace sparring
