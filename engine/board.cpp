// The board's state changes: make/unmake, Zobrist hashing, the psq score, and the queries
// about checks, repetitions and draws. FEN reading and writing live in fen.cpp.
#include "engine/board.h"

#include <algorithm>

#include "engine/bitboard.h"
#include "engine/movegen.h"

namespace sparring {

namespace {

// Random keys for every (piece, square), castling-rights set, en passant file and the side
// to move, from a fixed-seed splitmix64 so that hashes are the same on every run and machine.
struct ZobristKeys {
    std::array<std::array<Key, SQUARE_NB>, PIECE_NB> psq{};
    std::array<Key, ALL_CASTLING + 1> castling{};
    std::array<Key, 8> en_passant{};
    Key side = 0;
};

constexpr ZobristKeys ZOBRIST = [] {
    ZobristKeys keys;
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ 0x5350415252494E47ULL;  // "SPARRING"
    auto next = [&state] {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    for (auto& squares : keys.psq)
        for (Key& key : squares) key = next();
    for (Key& key : keys.castling) key = next();
    for (Key& key : keys.en_passant) key = next();
    keys.side = next();
    keys.castling[NO_CASTLING] = 0;
    return keys;
}();

// The castling rights that survive a move touching each square (a king or rook leaving or
// a rook being captured there).
constexpr std::array<std::uint8_t, SQUARE_NB> CASTLING_KEPT = [] {
    std::array<std::uint8_t, SQUARE_NB> kept{};
    kept.fill(ALL_CASTLING);
    kept[SQ_E1] = ALL_CASTLING & ~(WHITE_OO | WHITE_OOO);
    kept[SQ_H1] = ALL_CASTLING & ~WHITE_OO;
    kept[SQ_A1] = ALL_CASTLING & ~WHITE_OOO;
    kept[SQ_E8] = ALL_CASTLING & ~(BLACK_OO | BLACK_OOO);
    kept[SQ_H8] = ALL_CASTLING & ~BLACK_OO;
    kept[SQ_A8] = ALL_CASTLING & ~BLACK_OOO;
    return kept;
}();

// Returns the seed's name for the castle whose king lands on to.
constexpr CastleType castle_type_of(Square to) {
    switch (to) {
        case SQ_G1:
            return CastleType::WhiteKingside;
        case SQ_C1:
            return CastleType::WhiteQueenside;
        case SQ_G8:
            return CastleType::BlackKingside;
        default:
            return CastleType::BlackQueenside;
    }
}

}  // namespace

// Sets up the start position.
Board::Board() {
    history_.reserve(256);
    set_fen(START_FEN);
}

// Adds a piece to an empty square.
void Board::put_piece(Piece p, Square s) {
    by_type_[type_of(p)] |= square_bb(s);
    by_color_[color_of(p)] |= square_bb(s);
    squares_[s] = p;
}

// Removes the piece standing on s.
void Board::remove_piece(Square s) {
    Piece p = squares_[s];
    by_type_[type_of(p)] ^= square_bb(s);
    by_color_[color_of(p)] ^= square_bb(s);
    squares_[s] = NO_PIECE;
}

// Moves the piece on from to the empty square to.
void Board::move_piece(Square from, Square to) {
    Piece p = squares_[from];
    Bitboard from_to = square_bb(from) | square_bb(to);
    by_type_[type_of(p)] ^= from_to;
    by_color_[color_of(p)] ^= from_to;
    squares_[to] = p;
    squares_[from] = NO_PIECE;
}

// Recomputes the pieces checking the side to move (a king never gives check).
void Board::update_checkers() {
    const Color them = ~side_;
    const Square king = king_square(side_);
    const Bitboard diagonal = pieces(them, BISHOP) | pieces(them, QUEEN);
    const Bitboard straight = pieces(them, ROOK) | pieces(them, QUEEN);
    checkers_ = (pawn_attacks(side_, king) & pieces(them, PAWN)) |
                (knight_attacks(king) & pieces(them, KNIGHT));
    if (bishop_rays(king) & diagonal) checkers_ |= bishop_attacks(king, all_pieces()) & diagonal;
    if (rook_rays(king) & straight) checkers_ |= rook_attacks(king, all_pieces()) & straight;
}

// Pieces of either colour attacking s given the occupancy.
Bitboard Board::attackers_to(Square s, Bitboard occupied) const {
    return (pawn_attacks(BLACK, s) & pieces(WHITE, PAWN)) |
           (pawn_attacks(WHITE, s) & pieces(BLACK, PAWN)) | (knight_attacks(s) & by_type_[KNIGHT]) |
           (king_attacks(s) & by_type_[KING]) |
           (bishop_attacks(s, occupied) & (by_type_[BISHOP] | by_type_[QUEEN])) |
           (rook_attacks(s, occupied) & (by_type_[ROOK] | by_type_[QUEEN]));
}

// Returns whether the side to move's pawn on from may take en passant onto target without
// leaving its own king in check.
bool Board::en_passant_is_safe(Square from, Square target) const {
    const Square captured = Square(target ^ 8);  // the pawn that just moved two squares
    const Bitboard occupied =
        (all_pieces() ^ square_bb(from) ^ square_bb(captured)) | square_bb(target);
    return !(attackers_to(king_square(side_), occupied) & pieces(~side_) & ~square_bb(captured));
}

// Tells whether the side to move has a legal en passant capture onto target.
bool Board::en_passant_capturable(Square target) const {
    Bitboard candidates = pawn_attacks(~side_, target) & pieces(side_, PAWN);
    while (candidates)
        if (en_passant_is_safe(pop_lsb(candidates), target)) return true;
    return false;
}

// Recomputes the hash from scratch (for verification).
Key Board::compute_hash() const {
    Key key = ZOBRIST.castling[castling_];
    for (Bitboard b = all_pieces(); b;) {
        Square s = pop_lsb(b);
        key ^= ZOBRIST.psq[squares_[s]][s];
    }
    if (ep_square_ != SQ_NONE) key ^= ZOBRIST.en_passant[file_of(ep_square_)];
    if (side_ == BLACK) key ^= ZOBRIST.side;
    return key;
}

// Sums the attached table over every piece (0 without a table).
Score Board::compute_psq() const {
    Score score = 0;
    if (!psq_table_) return score;
    for (Bitboard b = all_pieces(); b;) {
        Square s = pop_lsb(b);
        score += (*psq_table_)[squares_[s]][s];
    }
    return score;
}

// Attaches a piece-square table (owned by the caller, may be null) and recomputes the score.
void Board::set_psq_table(const PsqTable* table) {
    psq_table_ = table;
    psq_ = compute_psq();
}

// Plays a legal move; undo_move() takes it back exactly.
// Longer than 80 lines on purpose: the hot path, every incremental update in one place.
void Board::do_move(Move m) {
    const Color us = side_, them = ~us;
    const Square from = m.from(), to = m.to();
    const Piece piece = squares_[from];
    const Piece captured = m.kind() == Move::EN_PASSANT ? make_piece(them, PAWN) : squares_[to];

    MoveRecord& record = history_.emplace_back();
    record.start = square_bb(from);
    record.end = square_bb(to);
    record.move = m;
    record.moved = piece;
    record.captured = captured;
    record.captured_bitboard = captured ? pieces(them, type_of(captured)) : 0;
    record.promotion = m.promotion();
    record.castling_rights = castling_;
    record.en_passant_position = en_passant_position();
    record.halfmove_clock = halfmove_clock_;
    record.hash = hash_;
    record.score = psq_;
    record.checkers = checkers_;

    const PsqTable* psq = psq_table_;
    Key key = hash_ ^ ZOBRIST.side;
    if (ep_square_ != SQ_NONE) {
        key ^= ZOBRIST.en_passant[file_of(ep_square_)];
        ep_square_ = SQ_NONE;
    }
    ++halfmove_clock_;
    ++game_ply_;
    Square new_ep = SQ_NONE;

    if (m.kind() == Move::CASTLING) {
        const bool kingside = to > from;
        const Square rook_from = Square(kingside ? to + 1 : to - 2);
        const Square rook_to = Square(kingside ? to - 1 : to + 1);
        const Piece rook = make_piece(us, ROOK);
        record.castle_type = castle_type_of(to);
        move_piece(from, to);
        move_piece(rook_from, rook_to);
        key ^= ZOBRIST.psq[piece][from] ^ ZOBRIST.psq[piece][to] ^ ZOBRIST.psq[rook][rook_from] ^
               ZOBRIST.psq[rook][rook_to];
        if (psq)
            psq_ += (*psq)[piece][to] - (*psq)[piece][from] + (*psq)[rook][rook_to] -
                    (*psq)[rook][rook_from];
    } else {
        if (captured) {
            const Square captured_on = m.kind() == Move::EN_PASSANT ? Square(to ^ 8) : to;
            remove_piece(captured_on);
            key ^= ZOBRIST.psq[captured][captured_on];
            if (psq) psq_ -= (*psq)[captured][captured_on];
            halfmove_clock_ = 0;
        }
        move_piece(from, to);
        key ^= ZOBRIST.psq[piece][from] ^ ZOBRIST.psq[piece][to];
        if (psq) psq_ += (*psq)[piece][to] - (*psq)[piece][from];
        if (type_of(piece) == PAWN) {
            halfmove_clock_ = 0;
            if (m.kind() == Move::PROMOTION) {
                const Piece promoted = make_piece(us, m.promotion());
                remove_piece(to);
                put_piece(promoted, to);
                key ^= ZOBRIST.psq[piece][to] ^ ZOBRIST.psq[promoted][to];
                if (psq) psq_ += (*psq)[promoted][to] - (*psq)[piece][to];
            } else if ((from ^ to) == 16 &&
                       (pawn_attacks(us, Square(to ^ 8)) & pieces(them, PAWN))) {
                new_ep = Square(to ^ 8);
            }
        }
    }

    if (castling_ && (CASTLING_KEPT[from] & CASTLING_KEPT[to]) != ALL_CASTLING) {
        key ^= ZOBRIST.castling[castling_];
        castling_ &= CASTLING_KEPT[from] & CASTLING_KEPT[to];
        key ^= ZOBRIST.castling[castling_];
    }

    side_ = them;
    update_checkers();
    if (new_ep != SQ_NONE && en_passant_capturable(new_ep)) {
        ep_square_ = new_ep;
        key ^= ZOBRIST.en_passant[file_of(new_ep)];
    }
    hash_ = key;
}

// Returns the hash the position will have after the legal move m, except that it leaves
// out an en passant square the move may create: the search uses it to prefetch the child's
// hash-table bucket before it decides whether to make the move at all.
Key Board::key_after(Move m) const {
    const Square from = m.from(), to = m.to();
    const Piece piece = squares_[from];
    Key key = hash_ ^ ZOBRIST.side ^ ZOBRIST.psq[piece][from];
    if (ep_square_ != SQ_NONE) key ^= ZOBRIST.en_passant[file_of(ep_square_)];
    if (m.kind() == Move::CASTLING) {
        const bool kingside = to > from;
        const Piece rook = make_piece(side_, ROOK);
        key ^= ZOBRIST.psq[piece][to] ^ ZOBRIST.psq[rook][kingside ? to + 1 : to - 2] ^
               ZOBRIST.psq[rook][kingside ? to - 1 : to + 1];
    } else {
        const Piece arriving =
            m.kind() == Move::PROMOTION ? make_piece(side_, m.promotion()) : piece;
        key ^= ZOBRIST.psq[arriving][to];
        if (m.kind() == Move::EN_PASSANT)
            key ^= ZOBRIST.psq[make_piece(~side_, PAWN)][to ^ 8];
        else if (squares_[to] != NO_PIECE)
            key ^= ZOBRIST.psq[squares_[to]][to];
    }
    const std::uint8_t castling = castling_ & CASTLING_KEPT[from] & CASTLING_KEPT[to];
    return key ^ ZOBRIST.castling[castling_] ^ ZOBRIST.castling[castling];
}

// Takes back the last move played with do_move().
void Board::undo_move() {
    if (history_.empty()) return;
    const MoveRecord& record = history_.back();
    const Move m = record.move;
    const Square from = m.from(), to = m.to();

    if (m.kind() == Move::CASTLING) {
        const bool kingside = to > from;
        move_piece(to, from);
        move_piece(Square(kingside ? to - 1 : to + 1), Square(kingside ? to + 1 : to - 2));
    } else {
        if (m.kind() == Move::PROMOTION) {
            remove_piece(to);
            put_piece(record.moved, to);
        }
        move_piece(to, from);
        if (record.captured)
            put_piece(record.captured, m.kind() == Move::EN_PASSANT ? Square(to ^ 8) : to);
    }

    side_ = ~side_;
    castling_ = record.castling_rights;
    ep_square_ = record.en_passant_position ? lsb_of(record.en_passant_position) : SQ_NONE;
    halfmove_clock_ = record.halfmove_clock;
    hash_ = record.hash;
    psq_ = record.score;
    checkers_ = record.checkers;
    --game_ply_;
    history_.pop_back();
}

// Passes the turn (for null-move pruning); undo_null_move() takes it back.
void Board::do_null_move() {
    MoveRecord& record = history_.emplace_back();
    record.castling_rights = castling_;
    record.en_passant_position = en_passant_position();
    record.halfmove_clock = halfmove_clock_;
    record.hash = hash_;
    record.score = psq_;
    record.checkers = checkers_;

    hash_ ^= ZOBRIST.side;
    if (ep_square_ != SQ_NONE) {
        hash_ ^= ZOBRIST.en_passant[file_of(ep_square_)];
        ep_square_ = SQ_NONE;
    }
    ++halfmove_clock_;
    ++game_ply_;
    side_ = ~side_;
    update_checkers();
}

// Takes back the null move played last.
void Board::undo_null_move() {
    if (history_.empty()) return;
    const MoveRecord& record = history_.back();
    side_ = ~side_;
    ep_square_ = record.en_passant_position ? lsb_of(record.en_passant_position) : SQ_NONE;
    halfmove_clock_ = record.halfmove_clock;
    hash_ = record.hash;
    checkers_ = record.checkers;
    --game_ply_;
    history_.pop_back();
}

// Plays the legal move from start to end given as one-bit masks; false changes nothing.
bool Board::move(Bitboard start, Bitboard end, PieceType promotion) {
    if (start == 0 || end == 0 || more_than_one(start) || more_than_one(end)) return false;
    for (Move m : MoveList<GenType::All>(*this)) {
        if (m.from() != lsb(start) || m.to() != lsb(end)) continue;
        if (m.kind() == Move::PROMOTION && m.promotion() != promotion) continue;
        do_move(m);
        return true;
    }
    return false;
}

// Returns whether m (from any source, e.g. the hash table) is legal here: true exactly for
// the moves generate<GenType::All> writes, encoded as it encodes them. The search asks this
// of the hash move and the killers at most nodes, so it checks the one move directly
// instead of generating the whole list.
bool Board::is_legal(Move m) const {
    const Color us = side_, them = ~us;
    const Square from = m.from(), to = m.to();
    const Piece piece = squares_[from];
    if (piece == NO_PIECE || color_of(piece) != us || (pieces(us) & square_bb(to))) return false;
    const Move::Kind kind = m.kind();
    // The generator leaves the promotion bits zero on every move that is not a promotion.
    if (kind != Move::PROMOTION && (m.raw() >> 12 & 3) != 0) return false;
    const PieceType pt = type_of(piece);
    const Square king = king_square(us);
    const Bitboard occupied = all_pieces();

    if (kind == Move::CASTLING) {
        // As the generator: rights (which imply king and rook at home), empty squares
        // between, and no attack on the king's square or the two it crosses.
        const Square home = us == WHITE ? SQ_E1 : SQ_E8;
        if (pt != KING || from != home || checkers_) return false;
        const auto attacked = [&](int s) {
            return (attackers_to(Square(s), occupied) & pieces(them)) != 0;
        };
        if (to == home + 2)
            return (castling_ & (us == WHITE ? WHITE_OO : BLACK_OO)) &&
                   !(occupied & (square_bb(Square(home + 1)) | square_bb(Square(home + 2)))) &&
                   !attacked(home + 1) && !attacked(home + 2);
        if (to == home - 2)
            return (castling_ & (us == WHITE ? WHITE_OOO : BLACK_OOO)) &&
                   !(occupied & (square_bb(Square(home - 1)) | square_bb(Square(home - 2)) |
                                 square_bb(Square(home - 3)))) &&
                   !attacked(home - 1) && !attacked(home - 2);
        return false;
    }
    if (pt == KING) {
        // A king steps onto a square no enemy attacks once the king has left its own.
        return kind == Move::NORMAL && (king_attacks(from) & square_bb(to)) &&
               !(attackers_to(to, occupied ^ square_bb(from)) & pieces(them));
    }
    // Only the king may move out of a double check.
    if (more_than_one(checkers_)) return false;
    if (kind == Move::EN_PASSANT)
        return pt == PAWN && to == ep_square_ && (pawn_attacks(us, from) & square_bb(to)) &&
               en_passant_is_safe(from, to);

    if (pt == PAWN) {
        const int up = us == WHITE ? 8 : -8;
        const Bitboard last_rank = us == WHITE ? rank_bb(7) : rank_bb(0);
        // Promotions and only promotions land on the last rank.
        if ((kind == Move::PROMOTION) != ((last_rank & square_bb(to)) != 0)) return false;
        const bool capture = (pawn_attacks(us, from) & pieces(them) & square_bb(to)) != 0;
        const bool push = to == from + up && !(occupied & square_bb(to));
        const bool double_push = to == from + 2 * up && relative_rank(us, rank_of(from)) == 1 &&
                                 !(occupied & (square_bb(Square(from + up)) | square_bb(to)));
        if (!capture && !push && !double_push) return false;
    } else {
        if (kind != Move::NORMAL || !(attacks_bb(pt, from, occupied) & square_bb(to))) return false;
    }
    // Out of a single check the move must take the checker or block its line.
    if (checkers_ && !((between_bb(king, lsb_of(checkers_)) | checkers_) & square_bb(to)))
        return false;
    // The move must not open a line from an enemy slider to the king (a slider standing on
    // the destination is captured).
    const Bitboard after = (occupied ^ square_bb(from)) | square_bb(to);
    const Bitboard diagonal = (pieces(them, BISHOP) | pieces(them, QUEEN)) & ~square_bb(to);
    const Bitboard straight = (pieces(them, ROOK) | pieces(them, QUEEN)) & ~square_bb(to);
    return !((bishop_rays(king) & diagonal) && (bishop_attacks(king, after) & diagonal)) &&
           !((rook_rays(king) & straight) && (rook_attacks(king, after) & straight));
}

// Returns whether the legal move m gives check, by looking at the enemy king from the
// position after the move: direct, discovered, en passant, castling and promotion checks.
bool Board::gives_check(Move m) const {
    const Color us = side_;
    const Square from = m.from(), to = m.to(), king = king_square(~us);
    Bitboard occupied = (all_pieces() ^ square_bb(from)) | square_bb(to);
    Bitboard diagonal = pieces(us, BISHOP) | pieces(us, QUEEN);
    Bitboard straight = pieces(us, ROOK) | pieces(us, QUEEN);
    Bitboard knights = pieces(us, KNIGHT), pawns = pieces(us, PAWN);
    PieceType arriving = m.kind() == Move::PROMOTION ? m.promotion() : type_of(squares_[from]);
    Square landing = to;

    if (m.kind() == Move::EN_PASSANT) occupied ^= square_bb(Square(to ^ 8));
    if (m.kind() == Move::CASTLING) {
        const bool kingside = to > from;
        const Square rook_from = Square(kingside ? to + 1 : to - 2);
        landing = Square(kingside ? to - 1 : to + 1);
        occupied ^= square_bb(rook_from) | square_bb(landing);
        straight ^= square_bb(rook_from);
        arriving = ROOK;
    }
    diagonal &= ~square_bb(from);
    straight &= ~square_bb(from);
    knights &= ~square_bb(from);
    pawns &= ~square_bb(from);
    switch (arriving) {
        case PAWN:
            pawns |= square_bb(landing);
            break;
        case KNIGHT:
            knights |= square_bb(landing);
            break;
        case BISHOP:
            diagonal |= square_bb(landing);
            break;
        case ROOK:
            straight |= square_bb(landing);
            break;
        case QUEEN:
            diagonal |= square_bb(landing);
            straight |= square_bb(landing);
            break;
        default:
            break;
    }
    // The empty-board rays rule out most slider checks without a magic lookup.
    return (pawn_attacks(~us, king) & pawns) || (knight_attacks(king) & knights) ||
           ((bishop_rays(king) & diagonal) && (bishop_attacks(king, occupied) & diagonal)) ||
           ((rook_rays(king) & straight) && (rook_attacks(king, occupied) & straight));
}

// Counts the earlier occurrences of the current position since the last irreversible move
// or null move, stopping once enough are found.
int Board::repetitions(int enough) const {
    int found = 0;
    const int reach = std::min<int>(halfmove_clock_, static_cast<int>(history_.size()));
    for (int back = 1; back <= reach && found < enough; ++back) {
        const MoveRecord& record = history_[history_.size() - back];
        if (record.move.is_none()) break;
        if (back % 2 == 0 && record.hash == hash_) ++found;
    }
    return found;
}

// True if the position repeats one since the last irreversible move (once is enough).
bool Board::is_repetition() const {
    return repetitions(1) >= 1;
}

// True after three occurrences of this position (the game-ending rule).
bool Board::is_threefold_repetition() const {
    return repetitions(2) >= 2;
}

// True when neither side can mate by any legal sequence of moves.
bool Board::is_insufficient_material() const {
    if (by_type_[PAWN] | by_type_[ROOK] | by_type_[QUEEN]) return false;
    const Bitboard minors = by_type_[KNIGHT] | by_type_[BISHOP];
    if (!more_than_one(minors)) return true;
    constexpr Bitboard DARK_SQUARES = 0xAA55AA55AA55AA55ULL;
    const Bitboard bishops = by_type_[BISHOP];
    return !by_type_[KNIGHT] && (!(bishops & DARK_SQUARES) || !(bishops & ~DARK_SQUARES));
}

// True when the fifty-move rule applies (and the side to move is not mated).
bool Board::is_fifty_move_draw() const {
    if (halfmove_clock_ < 100) return false;
    return !in_check() || MoveList<GenType::All>(*this).size() > 0;
}

}  // namespace sparring
