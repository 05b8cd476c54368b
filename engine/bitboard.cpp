// Builds the attack tables once, before main(): leaper tables, line geometry and the slider
// tables, indexed by magic multiplication or by PEXT.
#include "engine/bitboard.h"

namespace sparring {
namespace detail {

namespace {

constexpr int BISHOP_DIRECTIONS[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
constexpr int ROOK_DIRECTIONS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

// Returns the bit of the square at (file, rank), or 0 when that is off the board.
Bitboard square_at(int file, int rank) {
    return file >= 0 && file < 8 && rank >= 0 && rank < 8 ? square_bb(make_square(file, rank)) : 0;
}

// Walks the four rays of a slider from s, stopping each ray at the first occupied square.
Bitboard slide(const int (&directions)[4][2], Square s, Bitboard occupied) {
    Bitboard attacks = 0;
    for (const auto& d : directions) {
        for (int f = file_of(s) + d[0], r = rank_of(s) + d[1]; square_at(f, r);
             f += d[0], r += d[1]) {
            attacks |= square_at(f, r);
            if (occupied & square_at(f, r)) break;
        }
    }
    return attacks;
}

// Returns the union of the squares a leaper reaches from s with the given steps.
template <std::size_t N>
Bitboard leap(Square s, const int (&steps)[N][2]) {
    Bitboard attacks = 0;
    for (const auto& d : steps) attacks |= square_at(file_of(s) + d[0], rank_of(s) + d[1]);
    return attacks;
}

// Magic factors, one per square, found once offline by a fixed-seed search (xorshift64*,
// candidates with few bits set) and kept here so that start-up costs no search. Each maps
// every relevant occupancy of its square to a slot that holds exactly that occupancy's
// attacks; the tests check every such occupancy against a ray walk.
constexpr Bitboard BISHOP_MAGICS[SQUARE_NB] = {
    0x0010042800842200ULL, 0x0002020242020000ULL, 0x0004580200400002ULL, 0x400404188001009CULL,
    0x0004042141832000ULL, 0x2102861042000000ULL, 0xA402009004101000ULL, 0x8200C02A10062028ULL,
    0x2A41208290050500ULL, 0x4180088101060608ULL, 0x8000223081020042ULL, 0x1000042502001104ULL,
    0x8020040420000280ULL, 0x0010084402600804ULL, 0x0085320090080800ULL, 0x04810300A8040240ULL,
    0x2810200902500404ULL, 0x0410002114011040ULL, 0x0548053000404108ULL, 0x5000802802014000ULL,
    0x3004010611200014ULL, 0x10A2000040422058ULL, 0x0544000114018444ULL, 0x000020A049080804ULL,
    0x300C401A86503420ULL, 0x4A04205044088080ULL, 0x0800404004210200ULL, 0x0004010010200880ULL,
    0x001100100F004000ULL, 0x0000820211880420ULL, 0x8608006001010800ULL, 0x400A13A01E00820CULL,
    0x2008D22801404804ULL, 0x0008044400100100ULL, 0x012D220804010800ULL, 0x6006004040840100ULL,
    0x0040024110010100ULL, 0x302C080200013102ULL, 0x1818083100205100ULL, 0x1008148020008A10ULL,
    0x02C1241006044000ULL, 0x1002180444504201ULL, 0x018A010041000801ULL, 0x0000444200820810ULL,
    0x0000110122000400ULL, 0x6020020042048640ULL, 0x2004300089040204ULL, 0x4402040042040080ULL,
    0x8014A80410050404ULL, 0x000282841042A008ULL, 0x850002104208005CULL, 0x0E0A200108480001ULL,
    0x8800804005044002ULL, 0x2400200510008000ULL, 0x0011200214005080ULL, 0x0408100420A02086ULL,
    0x0000104402201001ULL, 0x404040210110108AULL, 0x080000A084008882ULL, 0x080140400620A800ULL,
    0x0000082290204840ULL, 0x0000064790020200ULL, 0x0220902081040080ULL, 0x0882200904050044ULL,
};

constexpr Bitboard ROOK_MAGICS[SQUARE_NB] = {
    0x1080008040001020ULL, 0x0840002000100040ULL, 0x0880088020011000ULL, 0x0680080290008004ULL,
    0x0200080200201004ULL, 0x0200010200100408ULL, 0x0480008002000900ULL, 0x020001008204402CULL,
    0x0050800020804000ULL, 0x0000808040002000ULL, 0x0800801000200084ULL, 0x1002000842021020ULL,
    0x0009000451004800ULL, 0x2851000204000900ULL, 0x2904808002001100ULL, 0x0001000841810016ULL,
    0x0900218001814004ULL, 0x0010044020044002ULL, 0x0482020020401880ULL, 0x2401010020081000ULL,
    0x0239010004110800ULL, 0x0400080104201040ULL, 0x0010240002083041ULL, 0x0028020024004081ULL,
    0x0040400080002094ULL, 0x2080820600204103ULL, 0x8000802200120044ULL, 0x0101002100100008ULL,
    0x0022000A00042110ULL, 0x0E04000202000810ULL, 0x1500020400081001ULL, 0x0000004600040481ULL,
    0x0100400086800820ULL, 0x088020100040004CULL, 0x1010804012002200ULL, 0x0120800802801003ULL,
    0x0008008008800401ULL, 0x8400020080800400ULL, 0x0010421084000801ULL, 0x001609004200108CULL,
    0x0024886040088000ULL, 0x9800200050004002ULL, 0x2432018120120040ULL, 0x0081002010010008ULL,
    0x1502000810220005ULL, 0x0244020004008080ULL, 0x0102820108040050ULL, 0x4020004084020001ULL,
    0x0010204000801C80ULL, 0x60C0008042200380ULL, 0x00404062D6008200ULL, 0x0540100008008080ULL,
    0x1814050008001100ULL, 0x0084810200040080ULL, 0x0024100208410400ULL, 0x040400A408410200ULL,
    0x0C02C10A00201082ULL, 0x0040024020130081ULL, 0x200200442010800AULL, 0x4446042010010009ULL,
    0x010200202810144AULL, 0x0005004802840001ULL, 0x0800308210010804ULL, 0x0000104401003086ULL,
};

// Fills one slider kind's magics and its slices of the shared attack array.
void build_slider(const int (&directions)[4][2], const Bitboard (&factors)[SQUARE_NB],
                  std::array<SliderMagic, SQUARE_NB>& magics, Bitboard* slices) {
    Bitboard* slice = slices;
    for (int sq = SQ_A1; sq <= SQ_H8; ++sq) {
        Square s = Square(sq);
        Bitboard edges = ((RANK_1_BB | RANK_8_BB) & ~rank_bb(rank_of(s))) |
                         ((FILE_A_BB | FILE_H_BB) & ~file_bb(file_of(s)));
        SliderMagic& m = magics[s];
        m.mask = slide(directions, s, 0) & ~edges;
        m.shift = static_cast<unsigned>(64 - popcount(m.mask));
        m.attacks = slice;

        m.magic = factors[s];
        Bitboard subset = 0;
        do {  // the carry-rippler trick enumerates every subset of the mask
            slice[m.index(subset)] = slide(directions, s, subset);
            subset = (subset - m.mask) & m.mask;
        } while (subset);
        slice += Bitboard{1} << popcount(m.mask);
    }
}

}  // namespace

AttackTables::AttackTables() {
    constexpr int KNIGHT_STEPS[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                        {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    constexpr int KING_STEPS[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                      {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    constexpr int WHITE_PAWN_STEPS[2][2] = {{-1, 1}, {1, 1}};
    constexpr int BLACK_PAWN_STEPS[2][2] = {{-1, -1}, {1, -1}};

    for (int sq = SQ_A1; sq <= SQ_H8; ++sq) {
        Square s = Square(sq);
        knight[s] = leap(s, KNIGHT_STEPS);
        king[s] = leap(s, KING_STEPS);
        pawn[WHITE][s] = leap(s, WHITE_PAWN_STEPS);
        pawn[BLACK][s] = leap(s, BLACK_PAWN_STEPS);
        bishop_rays[s] = slide(BISHOP_DIRECTIONS, s, 0);
        rook_rays[s] = slide(ROOK_DIRECTIONS, s, 0);
    }
    build_slider(BISHOP_DIRECTIONS, BISHOP_MAGICS, bishop, bishop_slices.data());
    build_slider(ROOK_DIRECTIONS, ROOK_MAGICS, rook, rook_slices.data());

    // Two squares share a line when a slider on one sees the other on an empty board.
    auto lookup = [](const SliderMagic& m, Bitboard occupied) {
        return m.attacks[m.index(occupied)];
    };
    for (int a = SQ_A1; a <= SQ_H8; ++a) {
        for (int b = SQ_A1; b <= SQ_H8; ++b) {
            const Square sa = Square(a), sb = Square(b);
            const Bitboard ends = square_bb(sa) | square_bb(sb);
            if (bishop_rays[sa] & square_bb(sb)) {
                line[a][b] = (bishop_rays[sa] & bishop_rays[sb]) | ends;
                between[a][b] = lookup(bishop[sa], ends) & lookup(bishop[sb], ends);
            } else if (rook_rays[sa] & square_bb(sb)) {
                line[a][b] = (rook_rays[sa] & rook_rays[sb]) | ends;
                between[a][b] = lookup(rook[sa], ends) & lookup(rook[sb], ends);
            }
        }
    }
}

// Built with the highest user priority so that other static objects (a Board made before
// main(), say) may already use the attack functions.
__attribute__((init_priority(101))) const AttackTables ATTACKS;

}  // namespace detail

}  // namespace sparring
