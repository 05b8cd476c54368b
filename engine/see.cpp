#include "engine/see.h"

#include "engine/bitboard.h"

namespace sparring {

bool see_ge(const Board& board, Move m, int threshold) {
    if (m.kind() == Move::CASTLING || m.kind() == Move::PROMOTION) return threshold <= 0;
    Square from = m.from(), to = m.to();
    int swap =
        (m.kind() == Move::EN_PASSANT ? SEE_VALUE[PAWN] : SEE_VALUE[type_of(board.piece_on(to))]) -
        threshold;
    if (swap < 0) return false;
    swap = SEE_VALUE[type_of(board.piece_on(from))] - swap;
    if (swap <= 0) return true;

    Bitboard occupied = board.all_pieces() ^ square_bb(from) ^ square_bb(to);
    if (m.kind() == Move::EN_PASSANT)
        occupied ^= square_bb(make_square(file_of(to), rank_of(from)));
    Color stm = board.side();
    Bitboard attackers = board.attackers_to(to, occupied) & occupied;
    Bitboard diagonal = board.pieces(BISHOP) | board.pieces(QUEEN);
    Bitboard straight = board.pieces(ROOK) | board.pieces(QUEEN);
    bool result = true;

    while (true) {
        stm = ~stm;
        attackers &= occupied;
        Bitboard mine = attackers & board.pieces(stm);
        if (!mine) break;
        result = !result;
        PieceType pt = PAWN;
        Bitboard least = 0;
        for (; pt <= KING; pt = PieceType(pt + 1)) {
            least = mine & board.pieces(pt);
            if (least) break;
        }
        // A king may only take last: if the other side still attacks, the capture is illegal.
        if (pt == KING) return (attackers & board.pieces(~stm)) ? !result : result;
        swap = SEE_VALUE[pt] - swap;
        if (swap < static_cast<int>(result)) break;
        occupied ^= least & -least;
        if (pt == PAWN || pt == BISHOP || pt == QUEEN)
            attackers |= bishop_attacks(to, occupied) & diagonal;
        if (pt == ROOK || pt == QUEEN) attackers |= rook_attacks(to, occupied) & straight;
    }
    return result;
}

}  // namespace sparring
