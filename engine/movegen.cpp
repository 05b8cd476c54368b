// Strictly legal move generation with a check mask and pin rays, and perft.
// One template walks the position's moves; a writer turns them into a list, a counter
// only adds up the sizes of the target sets (the bulk count at perft's last ply).
#include "engine/movegen.h"

#include "engine/bitboard.h"

namespace sparring {

namespace {

// Writes each move it is given into a list.
class MoveWriter {
  public:
    explicit MoveWriter(Move* list) : last_(list) {}
    Move* end() const { return last_; }

    // Adds a move from one square to each target.
    void piece_moves(Square from, Bitboard targets) {
        while (targets) *last_++ = Move(from, pop_lsb(targets));
    }
    // Adds a pawn move to each target, the pawn coming from Delta behind it.
    template <int Delta>
    void pawn_moves(Bitboard targets) {
        while (targets) {
            Square to = pop_lsb(targets);
            *last_++ = Move(Square(to - Delta), to);
        }
    }
    // Adds the four promotions onto each target, the pawn coming from Delta behind it.
    template <int Delta>
    void promotions(Bitboard targets) {
        while (targets) {
            Square to = pop_lsb(targets);
            for (PieceType pt : {QUEEN, ROOK, BISHOP, KNIGHT})
                *last_++ = Move(Square(to - Delta), to, Move::PROMOTION, pt);
        }
    }
    // Adds one special move (castling, en passant).
    void add(Move m) { *last_++ = m; }

  private:
    Move* last_;
};

// Counts the moves it is given without writing them.
class MoveCounter {
  public:
    int count() const { return count_; }

    // Counts a move from one square to each target.
    void piece_moves(Square, Bitboard targets) { count_ += popcount(targets); }
    // Counts a pawn move to each target.
    template <int Delta>
    void pawn_moves(Bitboard targets) {
        count_ += popcount(targets);
    }
    // Counts the four promotions onto each target.
    template <int Delta>
    void promotions(Bitboard targets) {
        count_ += 4 * popcount(targets);
    }
    // Counts one special move.
    void add(Move) { ++count_; }

  private:
    int count_ = 0;
};

// Tells whether side Them attacks s given the occupancy.
template <Color Them>
bool attacked_by(const Board& board, Square s, Bitboard occupied) {
    const Bitboard queens = board.pieces(Them, QUEEN);
    const Bitboard diagonal = board.pieces(Them, BISHOP) | queens;
    const Bitboard straight = board.pieces(Them, ROOK) | queens;
    return (pawn_attacks(~Them, s) & board.pieces(Them, PAWN)) ||
           (knight_attacks(s) & board.pieces(Them, KNIGHT)) ||
           (king_attacks(s) & board.pieces(Them, KING)) ||
           ((bishop_rays(s) & diagonal) && (bishop_attacks(s, occupied) & diagonal)) ||
           ((rook_rays(s) & straight) && (rook_attacks(s, occupied) & straight));
}

// Returns the rays from the king to each enemy slider of the given kind that pins one of
// our pieces, the pinner included.
template <Color Us, bool Diagonal>
Bitboard pin_rays(const Board& board, Square king, Bitboard own, Bitboard enemy) {
    constexpr Color Them = ~Us;
    const Bitboard sliders =
        board.pieces(Them, Diagonal ? BISHOP : ROOK) | board.pieces(Them, QUEEN);
    if (!((Diagonal ? bishop_rays(king) : rook_rays(king)) & sliders)) return 0;
    // Seen through our own pieces, the first enemy piece on each line may be a pinner.
    Bitboard snipers =
        (Diagonal ? bishop_attacks(king, enemy) : rook_attacks(king, enemy)) & sliders;
    Bitboard rays = 0;
    while (snipers) {
        Square sniper = pop_lsb(snipers);
        Bitboard ray = between_bb(king, sniper);
        Bitboard blockers = ray & own;
        if (blockers && !more_than_one(blockers)) rays |= ray | square_bb(sniper);
    }
    return rays;
}

// Hands every legal move of kind T for side Us to the sink.
template <Color Us, GenType T, class Sink>
void generate_moves(const Board& board, Sink& sink) {
    constexpr Color Them = ~Us;
    constexpr int Up = Us == WHITE ? 8 : -8;
    constexpr int UpLeft = Us == WHITE ? 7 : -9;
    constexpr int UpRight = Us == WHITE ? 9 : -7;
    constexpr Bitboard ThirdRank = Us == WHITE ? RANK_3_BB : RANK_6_BB;
    constexpr Bitboard LastRank = Us == WHITE ? RANK_8_BB : RANK_1_BB;

    const Bitboard own = board.pieces(Us), enemy = board.pieces(Them), occupied = own | enemy;
    const Square king = board.king_square(Us);
    const Bitboard checkers = board.checkers();
    const Bitboard wanted = T == GenType::All ? ~own : T == GenType::Captures ? enemy : ~occupied;

    Bitboard king_targets = king_attacks(king) & wanted;
    const Bitboard without_king = occupied ^ square_bb(king);
    while (king_targets) {
        Square to = pop_lsb(king_targets);
        if (!attacked_by<Them>(board, to, without_king)) sink.piece_moves(king, square_bb(to));
    }
    if (more_than_one(checkers)) return;

    const Bitboard check_mask =
        checkers ? between_bb(king, lsb(checkers)) | checkers : ~Bitboard{0};
    const Bitboard pin_straight = pin_rays<Us, false>(board, king, own, enemy);
    const Bitboard pin_diagonal = pin_rays<Us, true>(board, king, own, enemy);
    const Bitboard targets = wanted & check_mask;

    // Pawns: a pawn pinned along a diagonal never pushes, one pinned along a rank or file
    // never captures, and a pinned pawn must stay on its pin ray.
    const Bitboard pawns = board.pieces(Us, PAWN);
    const Bitboard pushers = pawns & ~pin_diagonal;
    Bitboard single =
        (shift<Up>(pushers & ~pin_straight) | (shift<Up>(pushers & pin_straight) & pin_straight)) &
        ~occupied;
    const Bitboard double_push = shift<Up>(single & ThirdRank) & ~occupied & check_mask;
    single &= check_mask;
    if constexpr (T != GenType::Captures) {
        sink.template pawn_moves<Up>(single & ~LastRank);
        sink.template pawn_moves<2 * Up>(double_push);
    }
    if constexpr (T != GenType::Quiets) {
        sink.template promotions<Up>(single & LastRank);
        const Bitboard capturers = pawns & ~pin_straight;
        const Bitboard free = capturers & ~pin_diagonal, pinned = capturers & pin_diagonal;
        const Bitboard prey = enemy & check_mask;
        const Bitboard left = (shift<UpLeft>(free) | (shift<UpLeft>(pinned) & pin_diagonal)) & prey;
        const Bitboard right =
            (shift<UpRight>(free) | (shift<UpRight>(pinned) & pin_diagonal)) & prey;
        sink.template pawn_moves<UpLeft>(left & ~LastRank);
        sink.template pawn_moves<UpRight>(right & ~LastRank);
        sink.template promotions<UpLeft>(left & LastRank);
        sink.template promotions<UpRight>(right & LastRank);

        if (const Square ep = board.ep_square(); ep != SQ_NONE) {
            Bitboard takers = pawn_attacks(Them, ep) & pawns;
            while (takers) {
                Square from = pop_lsb(takers);
                if (board.en_passant_is_safe(from, ep)) sink.add(Move(from, ep, Move::EN_PASSANT));
            }
        }
    }

    // Pinned knights never move; pinned sliders move only along their pin ray.
    Bitboard knights = board.pieces(Us, KNIGHT) & ~(pin_straight | pin_diagonal);
    while (knights) {
        Square from = pop_lsb(knights);
        sink.piece_moves(from, knight_attacks(from) & targets);
    }
    const Bitboard queens = board.pieces(Us, QUEEN);
    Bitboard diagonals = (board.pieces(Us, BISHOP) | queens) & ~pin_straight;
    while (diagonals) {
        Square from = pop_lsb(diagonals);
        Bitboard reach = bishop_attacks(from, occupied) & targets;
        sink.piece_moves(from, pin_diagonal & square_bb(from) ? reach & pin_diagonal : reach);
    }
    Bitboard straights = (board.pieces(Us, ROOK) | queens) & ~pin_diagonal;
    while (straights) {
        Square from = pop_lsb(straights);
        Bitboard reach = rook_attacks(from, occupied) & targets;
        sink.piece_moves(from, pin_straight & square_bb(from) ? reach & pin_straight : reach);
    }

    // Castling: the rights guarantee king and rook on their home squares; the squares between
    // must be empty, and the king may not castle out of, through or into check.
    if constexpr (T != GenType::Captures) {
        constexpr CastlingRights Short = Us == WHITE ? WHITE_OO : BLACK_OO;
        constexpr CastlingRights Long = Us == WHITE ? WHITE_OOO : BLACK_OOO;
        constexpr Square Home = Us == WHITE ? SQ_E1 : SQ_E8;
        const std::uint8_t rights = board.castling_rights();
        if (!checkers && (rights & (Short | Long))) {
            if ((rights & Short) &&
                !(occupied & (square_bb(Square(Home + 1)) | square_bb(Square(Home + 2)))) &&
                !attacked_by<Them>(board, Square(Home + 1), occupied) &&
                !attacked_by<Them>(board, Square(Home + 2), occupied))
                sink.add(Move(Home, Square(Home + 2), Move::CASTLING));
            if ((rights & Long) &&
                !(occupied & (square_bb(Square(Home - 1)) | square_bb(Square(Home - 2)) |
                              square_bb(Square(Home - 3)))) &&
                !attacked_by<Them>(board, Square(Home - 1), occupied) &&
                !attacked_by<Them>(board, Square(Home - 2), occupied))
                sink.add(Move(Home, Square(Home - 2), Move::CASTLING));
        }
    }
}

// Hands every legal move of kind T for the side to move to the sink.
template <GenType T, class Sink>
void generate_for_side(const Board& board, Sink& sink) {
    if (board.side() == WHITE)
        generate_moves<WHITE, T>(board, sink);
    else
        generate_moves<BLACK, T>(board, sink);
}

}  // namespace

// Writes the legal moves of kind T into list and returns the end of what it wrote.
template <GenType T>
Move* generate(const Board& board, Move* list) {
    MoveWriter writer(list);
    generate_for_side<T>(board, writer);
    return writer.end();
}

template Move* generate<GenType::All>(const Board&, Move*);
template Move* generate<GenType::Captures>(const Board&, Move*);
template Move* generate<GenType::Quiets>(const Board&, Move*);

// Counts the legal moves without writing them (the bulk count at perft's last ply).
int count_legal_moves(const Board& board) {
    MoveCounter counter;
    generate_for_side<GenType::All>(board, counter);
    return counter.count();
}

// Counts the leaf nodes at the given depth (bulk counting at the last ply).
std::uint64_t perft(Board& board, int depth) {
    if (depth <= 0) return 1;
    if (depth == 1) return static_cast<std::uint64_t>(count_legal_moves(board));
    std::uint64_t nodes = 0;
    for (Move m : MoveList<GenType::All>(board)) {
        board.do_move(m);
        nodes += depth == 2 ? static_cast<std::uint64_t>(count_legal_moves(board))
                            : perft(board, depth - 1);
        board.undo_move();
    }
    return nodes;
}

// Returns each root move with its perft count at depth - 1, in generation order.
std::vector<std::pair<Move, std::uint64_t>> perft_divide(Board& board, int depth) {
    std::vector<std::pair<Move, std::uint64_t>> counts;
    for (Move m : MoveList<GenType::All>(board)) {
        board.do_move(m);
        counts.emplace_back(m, perft(board, depth - 1));
        board.undo_move();
    }
    return counts;
}

}  // namespace sparring
