#include "engine/evaluate.h"

#include <algorithm>
#include <array>

#include "engine/bitboard.h"
#include "engine/eval_terms.h"
#include "engine/eval_trace.h"

namespace sparring {

namespace {

using eval_terms::eg_param;
using eval_terms::mg_param;

// Where a term's pairs start and how its elements are numbered.
struct TermRef {
    int pair;
    int first;
    int count;
};

// Returns the position of a named term; a name that is not in TERMS does not compile.
consteval TermRef ref(std::string_view name) {
    return {eval_terms::first_pair(name), eval_terms::term(name).first,
            eval_terms::term(name).count};
}

constexpr TermRef NO_TERM = {-1, 0, 0};
constexpr std::array<TermRef, PIECE_TYPE_NB> VALUE = {
    NO_TERM,           ref("PawnValue"), ref("KnightValue"), ref("BishopValue"), ref("RookValue"),
    ref("QueenValue"), NO_TERM};
constexpr std::array<TermRef, PIECE_TYPE_NB> RANK_BONUS = {
    NO_TERM,         ref("PawnRank"),  ref("KnightRank"), ref("BishopRank"),
    ref("RookRank"), ref("QueenRank"), ref("KingRank")};
constexpr std::array<TermRef, PIECE_TYPE_NB> FILE_BONUS = {
    NO_TERM,         ref("PawnFile"),  ref("KnightFile"), ref("BishopFile"),
    ref("RookFile"), ref("QueenFile"), ref("KingFile")};
constexpr std::array<TermRef, PIECE_TYPE_NB> MOBILITY = {NO_TERM,
                                                         NO_TERM,
                                                         ref("KnightMobility"),
                                                         ref("BishopMobility"),
                                                         ref("RookMobility"),
                                                         ref("QueenMobility"),
                                                         NO_TERM};

constexpr TermRef PASSED_PAWN = ref("PassedPawnRank");
constexpr TermRef PASSED_OWN_KING = ref("PassedOwnKingDistance");
constexpr TermRef PASSED_ENEMY_KING = ref("PassedEnemyKingDistance");
constexpr TermRef ISOLATED_PAWN = ref("IsolatedPawn");
constexpr TermRef DOUBLED_PAWN = ref("DoubledPawn");
constexpr TermRef BACKWARD_PAWN = ref("BackwardPawn");
constexpr TermRef PAWN_PHALANX = ref("PawnPhalanx");
constexpr TermRef PAWN_SUPPORTED = ref("PawnSupported");
constexpr TermRef SHIELD_CLOSE = ref("KingShieldClose");
constexpr TermRef SHIELD_FAR = ref("KingShieldFar");
constexpr TermRef KING_OPEN_FILE = ref("KingOpenFile");
constexpr TermRef KING_SEMI_OPEN_FILE = ref("KingSemiOpenFile");
constexpr TermRef KING_ATTACK = ref("KingAttack");  // knight, bishop, rook, queen
constexpr TermRef KING_ATTACKERS = ref("KingAttackers");
constexpr TermRef SAFE_CHECK = ref("SafeCheck");  // knight, bishop, rook, queen
constexpr TermRef BISHOP_PAIR = ref("BishopPair");
constexpr TermRef ROOK_OPEN_FILE = ref("RookOpenFile");
constexpr TermRef ROOK_SEMI_OPEN_FILE = ref("RookSemiOpenFile");
constexpr TermRef KNIGHT_OUTPOST = ref("KnightOutpost");
constexpr TermRef BISHOP_OUTPOST = ref("BishopOutpost");
constexpr TermRef THREAT_BY_PAWN = ref("ThreatByPawn");
constexpr TermRef TEMPO = ref("Tempo");

// Returns the pair of the element numbered n of a Label::Number term.
constexpr int numbered(const TermRef& t, int n) {
    return t.pair + n - t.first;
}

// Calls visit(pair) for each pair the piece-square value of c's piece of kind pt on s sums.
template <typename Visit>
void for_each_psq_pair(Color c, PieceType pt, Square s, Visit&& visit) {
    if (VALUE[pt].pair >= 0) visit(VALUE[pt].pair);
    const TermRef& ranks = RANK_BONUS[pt];
    const int rank = relative_rank(c, rank_of(s)) + 1;
    if (rank >= ranks.first && rank < ranks.first + ranks.count) visit(numbered(ranks, rank));
    visit(FILE_BONUS[pt].pair + std::min(file_of(s), 7 - file_of(s)));
}

// Sums the terms of one evaluation or, when tracing, records their coefficients instead.
// The sum keeps the middle-game and end-game totals in one 64-bit integer (see
// Evaluator::packed_weights_), so each term costs one multiply-add.
template <bool Trace>
class TermSum {
  public:
    TermSum(const std::int64_t* packed_weights, EvalTrace* trace)
        : weights_(packed_weights), trace_(trace) {}

    // Adds count times a pair for colour c: positively for white, negatively for black.
    void add(Color c, int pair, int count = 1) {
        const int n = c == WHITE ? count : -count;
        if constexpr (Trace) {
            trace_->mg[mg_param(pair)] += n;
            trace_->eg[eg_param(pair)] += n;
        } else {
            packed_ += n * weights_[pair];
        }
    }
    // Adds a middle-game and an end-game value (already signed for white's point of view).
    void add_values(int mg, int eg) { packed_ += Evaluator::pack(mg, eg); }

    // The totals: the middle-game one is the low 32 bits (no evaluation comes near 2^31),
    // and what remains is exactly the end-game total times 2^32.
    int mg() const { return static_cast<std::int32_t>(static_cast<std::uint32_t>(packed_)); }
    int eg() const { return static_cast<int>((packed_ - mg()) >> 32); }

  private:
    std::int64_t packed_ = 0;
    const std::int64_t* weights_;
    EvalTrace* trace_;
};

// Attack maps and masks that the terms of both colours read.
struct AttackInfo {
    Bitboard occupied = 0;
    std::array<Bitboard, COLOR_NB> pawn_attacks{};
    std::array<Bitboard, COLOR_NB> king_zone{};      // the king's square and its neighbours
    std::array<Bitboard, COLOR_NB> mobility_area{};  // where a piece's moves count
    std::array<Bitboard, COLOR_NB> attacked{};       // by any piece of that colour
    std::array<std::array<Bitboard, PIECE_TYPE_NB>, COLOR_NB> attacked_by{};
    std::array<int, COLOR_NB> king_attackers{};  // that colour's pieces hitting the enemy zone
};

// Returns the squares attacked by c's pawns.
Bitboard pawn_attack_map(Color c, Bitboard pawns) {
    return c == WHITE ? shift<9>(pawns) | shift<7>(pawns) : shift<-7>(pawns) | shift<-9>(pawns);
}

// Returns every square on the ranks in front of s as c sees the board.
constexpr Bitboard forward_ranks(Color c, Square s) {
    const int r = rank_of(s);
    if (c == WHITE) return r == 7 ? 0 : ~Bitboard{0} << (8 * (r + 1));
    return r == 0 ? 0 : ~Bitboard{0} >> (8 * (8 - r));
}

// Returns the files next to file f.
constexpr Bitboard adjacent_files(int f) {
    return (f > 0 ? file_bb(f - 1) : 0) | (f < 7 ? file_bb(f + 1) : 0);
}

// Returns the square in front of s as c sees the board.
constexpr Square forward_square(Color c, Square s) {
    return Square(c == WHITE ? s + 8 : s - 8);
}

// Fills the attack maps that do not depend on the pieces' own terms.
AttackInfo attack_info(const Board& board) {
    AttackInfo info;
    info.occupied = board.all_pieces();
    for (Color c : {WHITE, BLACK}) {
        const Square k = board.king_square(c);
        info.pawn_attacks[c] = pawn_attack_map(c, board.pieces(c, PAWN));
        info.king_zone[c] = king_attacks(k) | square_bb(k);
        info.attacked_by[c][PAWN] = info.pawn_attacks[c];
        info.attacked_by[c][KING] = king_attacks(k);
        info.attacked[c] = info.pawn_attacks[c] | king_attacks(k);
    }
    for (Color c : {WHITE, BLACK})
        info.mobility_area[c] =
            ~(board.pieces(c, PAWN) | board.pieces(c, KING)) & ~info.pawn_attacks[~c];
    return info;
}

// Adds c's pawn-structure terms that depend on the pawns alone and returns c's passed
// pawns (PawnCache keeps both).
template <bool Trace>
Bitboard evaluate_pawn_structure(const Board& board, Color c, TermSum<Trace>& sum) {
    const Bitboard own = board.pieces(c, PAWN);
    const Bitboard enemy = board.pieces(~c, PAWN);
    Bitboard passed_pawns = 0;
    for (Bitboard b = own; b;) {
        const Square s = pop_lsb(b);
        const int f = file_of(s);
        const Bitboard ahead = forward_ranks(c, s);
        const Square stop = forward_square(c, s);
        const bool isolated = !(own & adjacent_files(f));
        const bool passed =
            !(enemy & ahead & (file_bb(f) | adjacent_files(f))) && !(own & ahead & file_bb(f));
        if (isolated) sum.add(c, ISOLATED_PAWN.pair);
        if (own & ahead & file_bb(f)) sum.add(c, DOUBLED_PAWN.pair);
        if (own & pawn_attacks(~c, s)) sum.add(c, PAWN_SUPPORTED.pair);
        if (own & (shift<1>(square_bb(s)) | shift<-1>(square_bb(s)))) sum.add(c, PAWN_PHALANX.pair);
        if (!isolated && !passed && !(own & adjacent_files(f) & ~ahead) &&
            (enemy & pawn_attacks(c, stop)))
            sum.add(c, BACKWARD_PAWN.pair);
        if (passed) {
            sum.add(c, numbered(PASSED_PAWN, relative_rank(c, rank_of(s)) + 1));
            passed_pawns |= square_bb(s);
        }
    }
    return passed_pawns;
}

// Adds the terms of c's passed pawns that depend on where the kings stand.
template <bool Trace>
void evaluate_passed_pawn_kings(const Board& board, Color c, Bitboard passed, TermSum<Trace>& sum) {
    for (Bitboard b = passed; b;) {
        const Square stop = forward_square(c, pop_lsb(b));
        sum.add(c, PASSED_OWN_KING.pair, distance(stop, board.king_square(c)));
        sum.add(c, PASSED_ENEMY_KING.pair, distance(stop, board.king_square(~c)));
    }
}

// Adds the terms of c's pieces of kind Pt and records their attacks. The kind is a template
// argument so that each kind's attack lookup and terms compile without branching on it.
template <PieceType Pt, bool Trace>
void evaluate_piece_kind(const Board& board, Color c, AttackInfo& info, TermSum<Trace>& sum) {
    const Bitboard own_pawns = board.pieces(c, PAWN);
    const Bitboard enemy_pawns = board.pieces(~c, PAWN);
    const Bitboard enemy_zone = info.king_zone[~c];
    for (Bitboard b = board.pieces(c, Pt); b;) {
        const Square s = pop_lsb(b);
        const int f = file_of(s);
        const Bitboard attacks = attacks_bb(Pt, s, info.occupied);
        info.attacked_by[c][Pt] |= attacks;
        info.attacked[c] |= attacks;
        sum.add(c, MOBILITY[Pt].pair + popcount(attacks & info.mobility_area[c]));
        if (attacks & enemy_zone) {
            ++info.king_attackers[c];
            sum.add(c, KING_ATTACK.pair + Pt - KNIGHT, popcount(attacks & enemy_zone));
        }
        if constexpr (Pt == KNIGHT || Pt == BISHOP) {
            const int rank = relative_rank(c, rank_of(s));
            if (rank >= 3 && rank <= 5 && (own_pawns & pawn_attacks(~c, s)) &&
                !(enemy_pawns & adjacent_files(f) & forward_ranks(c, s)))
                sum.add(c, Pt == KNIGHT ? KNIGHT_OUTPOST.pair : BISHOP_OUTPOST.pair);
        }
        if constexpr (Pt == ROOK) {
            if (!(own_pawns & file_bb(f)))
                sum.add(c,
                        enemy_pawns & file_bb(f) ? ROOK_SEMI_OPEN_FILE.pair : ROOK_OPEN_FILE.pair);
        }
    }
}

// Adds the terms of c's knights, bishops, rooks and queens and records their attacks.
template <bool Trace>
void evaluate_pieces(const Board& board, Color c, AttackInfo& info, TermSum<Trace>& sum) {
    evaluate_piece_kind<KNIGHT>(board, c, info, sum);
    evaluate_piece_kind<BISHOP>(board, c, info, sum);
    evaluate_piece_kind<ROOK>(board, c, info, sum);
    evaluate_piece_kind<QUEEN>(board, c, info, sum);
    if (more_than_one(board.pieces(c, BISHOP))) sum.add(c, BISHOP_PAIR.pair);
    const Bitboard targets = board.pieces(~c) & ~board.pieces(~c, PAWN) & ~board.pieces(~c, KING);
    if (const int threats = popcount(info.pawn_attacks[c] & targets))
        sum.add(c, THREAT_BY_PAWN.pair, threats);
}

// Adds the terms about c's king: its shelter for c, the attack on it for the enemy.
template <bool Trace>
void evaluate_king(const Board& board, Color c, const AttackInfo& info, TermSum<Trace>& sum) {
    const Square k = board.king_square(c);
    const Bitboard own_pawns = board.pieces(c, PAWN);
    const Bitboard all_pawns = board.pieces(PAWN);
    const int f = file_of(k);
    const Bitboard files = file_bb(f) | adjacent_files(f);
    const int rank = relative_rank(c, rank_of(k));
    if (rank + 1 <= 7)
        sum.add(c, SHIELD_CLOSE.pair,
                popcount(own_pawns & files & rank_bb(relative_rank(c, rank + 1))));
    if (rank + 2 <= 7)
        sum.add(c, SHIELD_FAR.pair,
                popcount(own_pawns & files & rank_bb(relative_rank(c, rank + 2))));
    for (int file = std::max(f - 1, 0); file <= std::min(f + 1, 7); ++file) {
        if (!(all_pawns & file_bb(file)))
            sum.add(c, KING_OPEN_FILE.pair);
        else if (!(own_pawns & file_bb(file)))
            sum.add(c, KING_SEMI_OPEN_FILE.pair);
    }

    const Color enemy = ~c;
    if (const int attackers = info.king_attackers[enemy])
        sum.add(enemy, numbered(KING_ATTACKERS, std::min(attackers, KING_ATTACKERS.first +
                                                                        KING_ATTACKERS.count - 1)));
    const Bitboard safe = ~board.pieces(enemy) & ~info.attacked[c];
    const Bitboard bishop_lines = bishop_attacks(k, info.occupied);
    const Bitboard rook_lines = rook_attacks(k, info.occupied);
    const std::array<Bitboard, 4> checks = {
        knight_attacks(k) & info.attacked_by[enemy][KNIGHT],
        bishop_lines & info.attacked_by[enemy][BISHOP], rook_lines & info.attacked_by[enemy][ROOK],
        (bishop_lines | rook_lines) & info.attacked_by[enemy][QUEEN]};
    for (int i = 0; i < 4; ++i)
        if (const int n = popcount(checks[i] & safe)) sum.add(enemy, SAFE_CHECK.pair + i, n);
}

// Returns the game phase: PHASE_MAX with all pieces on the board, 0 with kings and pawns.
int game_phase(const Board& board) {
    const int phase = popcount(board.pieces(KNIGHT) | board.pieces(BISHOP)) +
                      2 * popcount(board.pieces(ROOK)) + 4 * popcount(board.pieces(QUEEN));
    return std::min(phase, PHASE_MAX);
}

// Evaluates board with params or, when tracing, records every coefficient in *trace;
// pawn_cache, when given (never when tracing), supplies the pawn-structure terms.
template <bool Trace>
int evaluate_impl(const Board& board, const std::int64_t* weights, EvalTrace* trace,
                  PawnCache* pawn_cache = nullptr) {
    TermSum<Trace> sum(weights, trace);
    if constexpr (Trace) {
        for (Bitboard b = board.all_pieces(); b;) {
            const Square s = pop_lsb(b);
            const Piece p = board.piece_on(s);
            for_each_psq_pair(color_of(p), type_of(p), s,
                              [&](int pair) { sum.add(color_of(p), pair); });
        }
    } else {
        sum.add_values(mg_value(board.psq_score()), eg_value(board.psq_score()));
    }

    std::array<Bitboard, COLOR_NB> passed{};
    if (!Trace && pawn_cache) {
        const Bitboard white = board.pieces(WHITE, PAWN), black = board.pieces(BLACK, PAWN);
        PawnCache::Entry& entry = pawn_cache->slot(white, black);
        if (entry.pawns[WHITE] != white || entry.pawns[BLACK] != black) {
            TermSum<false> pawn_sum(weights, nullptr);
            for (Color c : {WHITE, BLACK})
                entry.passed[c] = evaluate_pawn_structure(board, c, pawn_sum);
            entry.pawns[WHITE] = white;
            entry.pawns[BLACK] = black;
            entry.mg = pawn_sum.mg();
            entry.eg = pawn_sum.eg();
        }
        sum.add_values(entry.mg, entry.eg);
        passed = {entry.passed[WHITE], entry.passed[BLACK]};
    } else {
        for (Color c : {WHITE, BLACK}) passed[c] = evaluate_pawn_structure(board, c, sum);
    }
    for (Color c : {WHITE, BLACK}) evaluate_passed_pawn_kings(board, c, passed[c], sum);

    AttackInfo info = attack_info(board);
    for (Color c : {WHITE, BLACK}) evaluate_pieces(board, c, info, sum);
    for (Color c : {WHITE, BLACK}) evaluate_king(board, c, info, sum);
    sum.add(board.side(), TEMPO.pair);

    const int phase = game_phase(board);
    if constexpr (Trace) {
        trace->phase = phase;
        trace->side_to_move = board.side();
        return 0;
    } else {
        return blend_phases(sum.mg(), sum.eg(), phase, board.side());
    }
}

}  // namespace

Evaluator::Evaluator(const ParamSet& params) : params_(params) {
    packed_weights_.reserve(eval_terms::PAIR_NB);
    for (int pair = 0; pair < eval_terms::PAIR_NB; ++pair)
        packed_weights_.push_back(pack(params_[mg_param(pair)], params_[eg_param(pair)]));
    for (Color c : {WHITE, BLACK}) {
        for (PieceType pt : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING}) {
            for (int s = SQ_A1; s <= SQ_H8; ++s) {
                int mg = 0, eg = 0;
                for_each_psq_pair(c, pt, Square(s), [&](int pair) {
                    mg += params_[mg_param(pair)];
                    eg += params_[eg_param(pair)];
                });
                psq_table_[make_piece(c, pt)][s] =
                    c == WHITE ? make_score(mg, eg) : make_score(-mg, -eg);
            }
        }
    }
}

int Evaluator::evaluate(const Board& board) const {
    return evaluate_impl<false>(board, packed_weights_.data(), nullptr);
}

int Evaluator::evaluate(const Board& board, PawnCache& cache) const {
    return evaluate_impl<false>(board, packed_weights_.data(), nullptr, &cache);
}

EvalTrace trace_evaluation(const Board& board) {
    EvalTrace trace;
    trace.mg.assign(eval_terms::PARAM_NB, 0);
    trace.eg.assign(eval_terms::PARAM_NB, 0);
    evaluate_impl<true>(board, nullptr, &trace);
    return trace;
}

int evaluate_trace(const EvalTrace& trace, const ParamSet& params) {
    int mg = 0, eg = 0;
    for (std::size_t i = 0; i < trace.mg.size(); ++i) {
        mg += trace.mg[i] * params[i];
        eg += trace.eg[i] * params[i];
    }
    return blend_phases(mg, eg, trace.phase, trace.side_to_move);
}

}  // namespace sparring
