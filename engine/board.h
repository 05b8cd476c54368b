// The chess board: one bitboard per side and piece kind, as the seed's
// chessengine.bitboard.Board describes it, with incremental Zobrist hashing and an
// incremental piece-square score, and make/unmake through the move history.
#pragma once

#include <array>
#include <bit>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types.h"

namespace sparring {

inline constexpr std::string_view START_FEN =
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// Piece-square values (material included) per coloured piece and square, packed mg/eg.
// Entries for black pieces hold their value from white's point of view (negative).
using PsqTable = std::array<std::array<Score, SQUARE_NB>, PIECE_NB>;

// One entry of Board::moves(): the move and everything needed to undo it exactly.
struct MoveRecord {
    Bitboard start = 0;              // one-bit mask of the origin square
    Bitboard end = 0;                // one-bit mask of the destination square
    Move move;                       // the same move in its compact form
    Piece moved = NO_PIECE;          // the piece that moved (a pawn for promotions)
    Piece captured = NO_PIECE;       // the captured piece, NO_PIECE if none
    Bitboard captured_bitboard = 0;  // that piece kind's bitboard before the capture
    CastleType castle_type = CastleType::None;
    PieceType promotion = NO_PIECE_TYPE;
    std::uint8_t castling_rights = 0;  // rights before the move
    Bitboard en_passant_position = 0;  // en passant target mask before the move (0: none)
    int halfmove_clock = 0;            // before the move
    Key hash = 0;                      // position hash before the move
    Score score = 0;                   // incremental psq score before the move
    Bitboard checkers = 0;             // pieces giving check before the move

    Color captured_side() const { return color_of(captured); }
    PieceType captured_piece() const { return type_of(captured); }
};

class Board {
  public:
    // Sets up the start position.
    Board();

    // Parses a FEN; on failure returns false, leaves the board unchanged and fills *error
    // with a message naming what is wrong.
    bool set_fen(std::string_view fen, std::string* error = nullptr);
    // Returns the position as FEN.
    std::string fen() const;

    // The seed's named bitboards.
    Bitboard white_pawns() const { return pieces(WHITE, PAWN); }
    Bitboard white_knights() const { return pieces(WHITE, KNIGHT); }
    Bitboard white_bishops() const { return pieces(WHITE, BISHOP); }
    Bitboard white_rooks() const { return pieces(WHITE, ROOK); }
    Bitboard white_queens() const { return pieces(WHITE, QUEEN); }
    Bitboard white_kings() const { return pieces(WHITE, KING); }
    Bitboard black_pawns() const { return pieces(BLACK, PAWN); }
    Bitboard black_knights() const { return pieces(BLACK, KNIGHT); }
    Bitboard black_bishops() const { return pieces(BLACK, BISHOP); }
    Bitboard black_rooks() const { return pieces(BLACK, ROOK); }
    Bitboard black_queens() const { return pieces(BLACK, QUEEN); }
    Bitboard black_kings() const { return pieces(BLACK, KING); }
    Bitboard all_white() const { return by_color_[WHITE]; }
    Bitboard all_black() const { return by_color_[BLACK]; }
    Bitboard all_pieces() const { return by_color_[WHITE] | by_color_[BLACK]; }
    // The seed's (side, piece) lookup: board(WHITE, PAWN) == white_pawns().
    Bitboard board(Color side, PieceType piece) const { return pieces(side, piece); }
    Color side() const { return side_; }
    Color opponent_side() const { return ~side_; }
    // One-bit mask of the en passant target square, 0 when no en passant capture is legal.
    Bitboard en_passant_position() const {
        return ep_square_ == SQ_NONE ? 0 : square_bb(ep_square_);
    }
    // The moves made on this board since the last set_fen, oldest first.
    const std::vector<MoveRecord>& moves() const { return history_; }
    // Plays the legal move from start to end (one-bit masks, as the seed's Board.move);
    // promotion names the piece for a pawn reaching the last rank. Returns false, changing
    // nothing, when no such legal move exists.
    bool move(Bitboard start, Bitboard end, PieceType promotion = QUEEN);

    // Engine-facing accessors.
    Bitboard pieces(Color c, PieceType pt) const { return by_type_[pt] & by_color_[c]; }
    Bitboard pieces(PieceType pt) const { return by_type_[pt]; }
    Bitboard pieces(Color c) const { return by_color_[c]; }
    Piece piece_on(Square s) const { return squares_[s]; }
    Square king_square(Color c) const { return lsb_of(pieces(c, KING)); }
    Square ep_square() const { return ep_square_; }
    std::uint8_t castling_rights() const { return castling_; }
    int halfmove_clock() const { return halfmove_clock_; }
    int fullmove_number() const { return 1 + game_ply_ / 2; }
    int game_ply() const { return game_ply_; }
    Key hash() const { return hash_; }
    // Returns the hash after the legal move m, leaving out any en passant square the move
    // creates (for prefetching).
    Key key_after(Move m) const;
    // Recomputes the hash from scratch (for verification).
    Key compute_hash() const;

    // Pieces of either colour attacking s given the occupancy.
    Bitboard attackers_to(Square s, Bitboard occupied) const;
    // Enemy pieces giving check to the side to move.
    Bitboard checkers() const { return checkers_; }
    bool in_check() const { return checkers_ != 0; }
    // Returns whether m (from any source, e.g. the hash table) is legal here.
    bool is_legal(Move m) const;
    // Returns whether the side to move's pawn on from may take en passant onto target without
    // leaving its own king in check (target must be the en passant square).
    bool en_passant_is_safe(Square from, Square target) const;
    // Returns whether the legal move m gives check.
    bool gives_check(Move m) const;
    bool is_capture(Move m) const {
        return squares_[m.to()] != NO_PIECE || m.kind() == Move::EN_PASSANT;
    }

    // Plays a legal move; undo_move() takes it back exactly.
    void do_move(Move m);
    void undo_move();
    // Passes the turn (for null-move pruning); undo_null_move() takes it back.
    void do_null_move();
    void undo_null_move();

    // True if the position repeats one since the last irreversible move (once is enough).
    bool is_repetition() const;
    // True after three occurrences of this position (the game-ending rule).
    bool is_threefold_repetition() const;
    // True when neither side can mate by any legal sequence (K v K, K+minor v K, KB v KB same
    // colour).
    bool is_insufficient_material() const;
    // True when the fifty-move rule applies (and the side to move is not mated).
    bool is_fifty_move_draw() const;

    // Attaches a piece-square table (owned by the caller, may be null for zero scores)
    // and recomputes the incremental score.
    void set_psq_table(const PsqTable* table);
    // Sum of the attached table over all pieces, white's point of view.
    Score psq_score() const { return psq_; }

  private:
    struct Empty {};
    explicit Board(Empty) {}

    static Square lsb_of(Bitboard b) { return Square(std::countr_zero(b)); }
    void put_piece(Piece p, Square s);
    void remove_piece(Square s);
    void move_piece(Square from, Square to);
    void update_checkers();
    bool parse_fen(std::string_view fen, std::string& error);
    bool en_passant_capturable(Square target) const;
    Score compute_psq() const;
    int repetitions(int enough) const;

    std::array<Bitboard, PIECE_TYPE_NB> by_type_{};
    std::array<Bitboard, COLOR_NB> by_color_{};
    std::array<Piece, SQUARE_NB> squares_{};
    Color side_ = WHITE;
    Square ep_square_ = SQ_NONE;
    std::uint8_t castling_ = NO_CASTLING;
    int halfmove_clock_ = 0;
    int game_ply_ = 0;
    Key hash_ = 0;
    Bitboard checkers_ = 0;
    Score psq_ = 0;
    const PsqTable* psq_table_ = nullptr;
    std::vector<MoveRecord> history_;
};

}  // namespace sparring
