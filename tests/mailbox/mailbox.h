// A deliberately simple 12x12 mailbox move generator, independent of the bitboard engine,
// used by the tests as an oracle. It follows seeds/000_577979de38f61c86.txt: 144 squares
// numbered square = 12 * y + x from the bottom row, the 8x8 board at x, y = 2..9 (A1 = 26,
// H8 = 117) inside a two-square border of off-board sentinels, and the seed's type codes.
// Unlike the seed's diagram (king on d1, queen on e1) pieces stand as FIDE places them:
// queen on d1, king on e1.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::mailbox {

inline constexpr int WIDTH = 12;
inline constexpr int SQUARE_COUNT = WIDTH * WIDTH;
inline constexpr int NO_SQUARE = -1;

// The seed's piece type codes. A cell holds +code for a white piece, -code for a black
// one, EMPTY for an empty square and OFF_BOARD for a sentinel square of the border.
enum PieceCode : std::int8_t {
    EMPTY = 0,
    PAWN = 1,
    KNIGHT = 3,
    BISHOP = 4,
    ROOK = 5,
    QUEEN = 8,
    KING = 10,
    OFF_BOARD = 99
};

// Castling rights as FEN writes them, one bit each.
enum CastlingBit : std::uint8_t {
    WHITE_KINGSIDE = 1,
    WHITE_QUEENSIDE = 2,
    BLACK_KINGSIDE = 4,
    BLACK_QUEENSIDE = 8
};

struct Position {
    std::array<std::int8_t, SQUARE_COUNT> cells{};
    bool white_to_move = true;
    std::uint8_t castling = 0;
    int en_passant = NO_SQUARE;  // target square, set only when a legal en passant capture exists
    int halfmove_clock = 0;
    int fullmove_number = 1;
};

// A move between mailbox squares; castling is the king's two-square move, as UCI writes it.
struct Move {
    int from = NO_SQUARE;
    int to = NO_SQUARE;
    PieceCode promotion = EMPTY;
};

// Returns the mailbox square of a file and rank counted 0..7 from a1.
constexpr int mailbox_square(int file, int rank) {
    return WIDTH * (rank + 2) + file + 2;
}
// Returns whether a mailbox square lies on the 8x8 board rather than in the border.
constexpr bool is_on_board(int sq) {
    return sq >= 0 && sq < SQUARE_COUNT && sq % WIDTH >= 2 && sq % WIDTH <= 9 && sq / WIDTH >= 2 &&
           sq / WIDTH <= 9;
}
// Returns the bitboard index (a1 = 0 ... h8 = 63) of a mailbox square, or -1 off the board.
constexpr int to_bitboard_index(int sq) {
    return is_on_board(sq) ? 8 * (sq / WIDTH - 2) + sq % WIDTH - 2 : -1;
}
// Returns the mailbox square of a bitboard index 0..63, or NO_SQUARE outside that range.
constexpr int from_bitboard_index(int index) {
    return index >= 0 && index < 64 ? mailbox_square(index % 8, index / 8) : NO_SQUARE;
}

// Returns the algebraic name ("e4") of an on-board square, "-" for any other.
std::string square_name(int sq);
// Returns the mailbox square named like "e4", or NO_SQUARE if the name is not a square.
int square_from_name(std::string_view name);

// Parses a FEN (the two clocks may be omitted); on failure returns nullopt and fills
// *error with what is wrong.
std::optional<Position> parse_fen(std::string_view fen, std::string* error = nullptr);
// Returns the position as FEN.
std::string to_fen(const Position& pos);

// Returns whether a piece of the given colour attacks sq.
bool is_attacked(const Position& pos, int sq, bool by_white);
// Returns whether the side to move is in check.
bool in_check(const Position& pos);
// Returns the legal moves: pseudo-legal moves that do not leave the own king attacked.
std::vector<Move> legal_moves(const Position& pos);
// Returns the position after a legal move.
Position make_move(const Position& pos, const Move& move);
// Returns the move in UCI notation (e2e4, e7e8q).
std::string to_uci(const Move& move);
// Returns the legal moves in UCI notation, sorted.
std::vector<std::string> legal_moves_uci(const Position& pos);
// Counts the leaf nodes of the legal move tree at the given depth.
std::uint64_t perft(const Position& pos, int depth);

}  // namespace sparring::mailbox
