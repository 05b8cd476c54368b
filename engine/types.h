// Basic chess types shared by every part of the engine.
#pragma once

#include <cstdint>

namespace sparring {

using Bitboard = std::uint64_t;
using Key = std::uint64_t;

enum Color : std::uint8_t { WHITE, BLACK, COLOR_NB = 2 };

// Piece kinds; the numbering is internal (the seed's type codes live in mailbox.h).
enum PieceType : std::uint8_t {
    NO_PIECE_TYPE,
    PAWN,
    KNIGHT,
    BISHOP,
    ROOK,
    QUEEN,
    KING,
    PIECE_TYPE_NB = 7
};

// A coloured piece: colour in bit 3, kind in bits 0-2.
enum Piece : std::uint8_t {
    NO_PIECE,
    W_PAWN = 1,
    W_KNIGHT,
    W_BISHOP,
    W_ROOK,
    W_QUEEN,
    W_KING,
    B_PAWN = 9,
    B_KNIGHT,
    B_BISHOP,
    B_ROOK,
    B_QUEEN,
    B_KING,
    PIECE_NB = 16
};

// Squares a1 = 0 ... h8 = 63, rank by rank from white's side.
enum Square : std::int8_t {
    SQ_A1,
    SQ_B1,
    SQ_C1,
    SQ_D1,
    SQ_E1,
    SQ_F1,
    SQ_G1,
    SQ_H1,
    SQ_A2,
    SQ_B2,
    SQ_C2,
    SQ_D2,
    SQ_E2,
    SQ_F2,
    SQ_G2,
    SQ_H2,
    SQ_A3,
    SQ_B3,
    SQ_C3,
    SQ_D3,
    SQ_E3,
    SQ_F3,
    SQ_G3,
    SQ_H3,
    SQ_A4,
    SQ_B4,
    SQ_C4,
    SQ_D4,
    SQ_E4,
    SQ_F4,
    SQ_G4,
    SQ_H4,
    SQ_A5,
    SQ_B5,
    SQ_C5,
    SQ_D5,
    SQ_E5,
    SQ_F5,
    SQ_G5,
    SQ_H5,
    SQ_A6,
    SQ_B6,
    SQ_C6,
    SQ_D6,
    SQ_E6,
    SQ_F6,
    SQ_G6,
    SQ_H6,
    SQ_A7,
    SQ_B7,
    SQ_C7,
    SQ_D7,
    SQ_E7,
    SQ_F7,
    SQ_G7,
    SQ_H7,
    SQ_A8,
    SQ_B8,
    SQ_C8,
    SQ_D8,
    SQ_E8,
    SQ_F8,
    SQ_G8,
    SQ_H8,
    SQ_NONE,
    SQUARE_NB = 64
};

// Castling rights as a 4-bit set.
enum CastlingRights : std::uint8_t {
    NO_CASTLING = 0,
    WHITE_OO = 1,
    WHITE_OOO = 2,
    BLACK_OO = 4,
    BLACK_OOO = 8,
    ALL_CASTLING = 15
};

// Which castle a move was, as the seed's Board.moves records it.
enum class CastleType : std::uint8_t {
    None,
    WhiteKingside,
    WhiteQueenside,
    BlackKingside,
    BlackQueenside
};

// A move in 16 bits: from (0-5), to (6-11), promotion kind - KNIGHT (12-13), kind (14-15).
// Castling is encoded as the king's move (e1g1), as UCI writes it.
class Move {
  public:
    enum Kind : std::uint16_t { NORMAL = 0, PROMOTION = 1, EN_PASSANT = 2, CASTLING = 3 };

    constexpr Move() = default;
    constexpr Move(Square from, Square to, Kind kind = NORMAL, PieceType promo = KNIGHT)
        : data_(static_cast<std::uint16_t>(from | (to << 6) | ((promo - KNIGHT) << 12) |
                                           (kind << 14))) {}

    static constexpr Move none() { return Move(); }
    static constexpr Move from_raw(std::uint16_t raw) {
        Move m;
        m.data_ = raw;
        return m;
    }

    constexpr Square from() const { return Square(data_ & 63); }
    constexpr Square to() const { return Square((data_ >> 6) & 63); }
    constexpr Kind kind() const { return Kind(data_ >> 14); }
    constexpr PieceType promotion() const {
        return kind() == PROMOTION ? PieceType(((data_ >> 12) & 3) + KNIGHT) : NO_PIECE_TYPE;
    }
    constexpr std::uint16_t raw() const { return data_; }
    constexpr bool is_none() const { return data_ == 0; }
    constexpr explicit operator bool() const { return data_ != 0; }
    constexpr bool operator==(const Move&) const = default;

  private:
    std::uint16_t data_ = 0;
};

// A middle-game/end-game value pair packed into one integer: end game in the high half.
using Score = std::int32_t;
constexpr Score make_score(int mg, int eg) {
    return static_cast<Score>(static_cast<std::uint32_t>(eg) << 16) + mg;
}
constexpr int mg_value(Score s) {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(static_cast<std::uint32_t>(s)));
}
constexpr int eg_value(Score s) {
    return static_cast<std::int16_t>(
        static_cast<std::uint16_t>((static_cast<std::uint32_t>(s) + 0x8000u) >> 16));
}

constexpr Color operator~(Color c) {
    return Color(c ^ 1);
}
constexpr Piece make_piece(Color c, PieceType pt) {
    return Piece((c << 3) | pt);
}
constexpr PieceType type_of(Piece p) {
    return PieceType(p & 7);
}
constexpr Color color_of(Piece p) {
    return Color(p >> 3);
}
constexpr int file_of(Square s) {
    return s & 7;
}
constexpr int rank_of(Square s) {
    return s >> 3;
}
constexpr Square make_square(int file, int rank) {
    return Square(rank * 8 + file);
}
constexpr Bitboard square_bb(Square s) {
    return Bitboard{1} << s;
}
// Turns a rank relative to colour c into an absolute one.
constexpr int relative_rank(Color c, int rank) {
    return c == WHITE ? rank : 7 - rank;
}

}  // namespace sparring
