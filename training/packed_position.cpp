#include "training/packed_position.h"

#include <bit>

namespace sparring::training {

namespace {

constexpr std::string_view PIECE_LETTERS = " PNBRQK  pnbrqk";
constexpr std::uint8_t NO_EP_SQUARE = 64;

// Returns the FEN of a packed position, or nullopt with *error when a field is out of range.
std::optional<std::string> packed_fen(const PackedPosition& packed, std::string* error) {
    const auto& b = packed.bytes;
    std::uint64_t occupied = 0;
    for (int i = 0; i < 8; ++i) occupied |= std::uint64_t{b[i]} << (8 * i);
    if (std::popcount(occupied) > 32) {
        if (error) *error = "packed position has more than 32 pieces";
        return std::nullopt;
    }
    std::array<char, SQUARE_NB> letters{};
    int n = 0;
    for (int s = 0; s < SQUARE_NB; ++s) {
        if (!(occupied >> s & 1)) continue;
        const int piece = n % 2 == 0 ? b[8 + n / 2] & 15 : b[8 + n / 2] >> 4;
        ++n;
        if (PIECE_LETTERS[piece] == ' ') {
            if (error) *error = "packed position has a bad piece code " + std::to_string(piece);
            return std::nullopt;
        }
        letters[s] = PIECE_LETTERS[piece];
    }
    std::string fen;
    for (int rank = 7; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            const char c = letters[make_square(file, rank)];
            if (!c) {
                ++empty;
                continue;
            }
            if (empty) fen += char('0' + empty);
            empty = 0;
            fen += c;
        }
        if (empty) fen += char('0' + empty);
        if (rank) fen += '/';
    }
    fen += b[24] & 1 ? " b " : " w ";
    const int castling = (b[24] >> 1) & 15;
    if (!castling) fen += '-';
    for (int i = 0; i < 4; ++i)
        if (castling & (1 << i)) fen += "KQkq"[i];
    if (b[25] == NO_EP_SQUARE) {
        fen += " -";
    } else if (b[25] < NO_EP_SQUARE) {
        fen += ' ';
        fen += char('a' + b[25] % 8);
        fen += char('1' + b[25] / 8);
    } else {
        if (error) *error = "packed position has a bad en passant square";
        return std::nullopt;
    }
    const int fullmove = b[27] | b[28] << 8 | b[29] << 16;
    fen += ' ' + std::to_string(b[26]) + ' ' + std::to_string(fullmove);
    return fen;
}

}  // namespace

std::optional<PackedPosition> pack_position(const Board& board, std::string* error) {
    const Bitboard occupied = board.all_pieces();
    if (std::popcount(occupied) > 32) {
        if (error) *error = "a position with more than 32 pieces cannot be packed";
        return std::nullopt;
    }
    PackedPosition packed;
    auto& b = packed.bytes;
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(occupied >> (8 * i));
    int n = 0;
    for (Bitboard rest = occupied; rest; rest &= rest - 1, ++n) {
        const auto piece =
            static_cast<std::uint8_t>(board.piece_on(Square(std::countr_zero(rest))));
        b[8 + n / 2] |= n % 2 == 0 ? piece : static_cast<std::uint8_t>(piece << 4);
    }
    b[24] = static_cast<std::uint8_t>(board.side() | board.castling_rights() << 1);
    b[25] =
        board.ep_square() == SQ_NONE ? NO_EP_SQUARE : static_cast<std::uint8_t>(board.ep_square());
    b[26] = static_cast<std::uint8_t>(board.halfmove_clock());
    const int fullmove = board.fullmove_number();
    for (int i = 0; i < 3; ++i) b[27 + i] = static_cast<std::uint8_t>(fullmove >> (8 * i));
    return packed;
}

bool unpack_position(const PackedPosition& packed, Board* board, std::string* error) {
    const std::optional<std::string> fen = packed_fen(packed, error);
    return fen && board->set_fen(*fen, error);
}

}  // namespace sparring::training
