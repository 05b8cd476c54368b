// The board as the seed describes it: square numbering and lookup tables, named bitboards,
// move() with its move records, make/unmake, Zobrist hashing and the draw rules.
#include <gtest/gtest.h>

#include "engine/bitboard.h"
#include "engine/lookup_tables.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine_samples.h"

namespace sparring {
namespace {

namespace lt = lookup_tables;

using samples::at;
using samples::board_at;

TEST(LookupTables, PinTheSeedsExamples) {
    EXPECT_EQ(*lt::mask_from_name("c2"), Bitboard{1} << 10);
    EXPECT_EQ(*lt::mask_from_name("e5"), Bitboard{1} << 36);
    EXPECT_EQ(*lt::index_from_name("a1"), SQ_A1);
    EXPECT_EQ(int(*lt::index_from_name("a1")), 0);
    EXPECT_EQ(int(*lt::index_from_name("h8")), 63);
    EXPECT_EQ(int(*lt::index_from_name("e5")), 36);
    EXPECT_EQ(*lt::name_from_mask(Bitboard{1} << 10), "c2");
    EXPECT_EQ(lt::name_from_index(SQ_H8), "h8");
    EXPECT_EQ(*lt::index_from_name("E5"), SQ_E5);
}

TEST(LookupTables, RoundTripEverySquare) {
    for (int i = 0; i < 64; ++i) {
        const Square s = Square(i);
        const std::string name = lt::name_from_index(s);
        EXPECT_EQ(name, (std::string{char('a' + i % 8), char('1' + i / 8)}));
        EXPECT_EQ(lt::index_from_name(name), s);
        EXPECT_EQ(lt::mask_from_index(s), Bitboard{1} << i);
        EXPECT_EQ(lt::index_from_mask(Bitboard{1} << i), s);
        EXPECT_EQ(lt::mask_from_name(name), Bitboard{1} << i);
        EXPECT_EQ(lt::name_from_mask(Bitboard{1} << i), name);
    }
}

TEST(LookupTables, RejectBadNamesAndMasks) {
    for (const char* bad : {"", "e", "e55", "i1", "a0", "a9", "11", "ee", " e4", "e4 "})
        EXPECT_FALSE(lt::index_from_name(bad).has_value()) << "'" << bad << "'";
    EXPECT_FALSE(lt::mask_from_name("z9").has_value());
    for (Bitboard bad : {Bitboard{0}, Bitboard{3}, Bitboard{0x8000000000000001ULL}, ~Bitboard{0}}) {
        EXPECT_FALSE(lt::index_from_mask(bad).has_value()) << bad;
        EXPECT_FALSE(lt::name_from_mask(bad).has_value()) << bad;
    }
}

TEST(Board, StartPositionHasTheSeedsNamedBitboards) {
    const Board board;
    EXPECT_EQ(board.white_pawns(), 0x000000000000FF00ULL);
    EXPECT_EQ(board.white_knights(), at("b1") | at("g1"));
    EXPECT_EQ(board.white_bishops(), at("c1") | at("f1"));
    EXPECT_EQ(board.white_rooks(), at("a1") | at("h1"));
    EXPECT_EQ(board.white_queens(), at("d1"));  // FIDE: the queen on her own colour
    EXPECT_EQ(board.white_kings(), at("e1"));
    EXPECT_EQ(board.black_pawns(), 0x00FF000000000000ULL);
    EXPECT_EQ(board.black_knights(), at("b8") | at("g8"));
    EXPECT_EQ(board.black_bishops(), at("c8") | at("f8"));
    EXPECT_EQ(board.black_rooks(), at("a8") | at("h8"));
    EXPECT_EQ(board.black_queens(), at("d8"));
    EXPECT_EQ(board.black_kings(), at("e8"));
    EXPECT_EQ(board.all_white(), 0x000000000000FFFFULL);
    EXPECT_EQ(board.all_black(), 0xFFFF000000000000ULL);
    EXPECT_EQ(board.all_pieces(), 0xFFFF00000000FFFFULL);
    EXPECT_EQ(board.side(), WHITE);
    EXPECT_EQ(board.opponent_side(), BLACK);
    EXPECT_EQ(board.en_passant_position(), 0u);
    EXPECT_EQ(board.castling_rights(), ALL_CASTLING);
    EXPECT_TRUE(board.moves().empty());
    EXPECT_EQ(board.fen(), START_FEN);
}

TEST(Board, SideAndPieceLookupEqualsTheNamedAccessors) {
    for (const std::string& fen : samples::sample_fens()) {
        const Board b = board_at(fen);
        const Bitboard named[2][7] = {{0, b.white_pawns(), b.white_knights(), b.white_bishops(),
                                       b.white_rooks(), b.white_queens(), b.white_kings()},
                                      {0, b.black_pawns(), b.black_knights(), b.black_bishops(),
                                       b.black_rooks(), b.black_queens(), b.black_kings()}};
        Bitboard union_all = 0;
        for (Color c : {WHITE, BLACK}) {
            for (int pt = PAWN; pt <= KING; ++pt) {
                EXPECT_EQ(b.board(c, PieceType(pt)), named[c][pt]) << fen;
                union_all |= named[c][pt];
            }
        }
        EXPECT_EQ(b.all_white() | b.all_black(), b.all_pieces());
        EXPECT_EQ(b.all_white() & b.all_black(), 0u);
        EXPECT_EQ(union_all, b.all_pieces()) << fen;
        for (int i = 0; i < 64; ++i) {
            const Piece p = b.piece_on(Square(i));
            if (p != NO_PIECE)
                EXPECT_TRUE(b.board(color_of(p), type_of(p)) & (Bitboard{1} << i));
            else
                EXPECT_FALSE(b.all_pieces() & (Bitboard{1} << i));
        }
    }
}

TEST(Board, SideSwitchesAfterEachMove) {
    Board board;
    ASSERT_TRUE(board.move(at("g1"), at("f3")));
    EXPECT_EQ(board.side(), BLACK);
    EXPECT_EQ(board.opponent_side(), WHITE);
    ASSERT_TRUE(board.move(at("g8"), at("f6")));
    EXPECT_EQ(board.side(), WHITE);
    EXPECT_EQ(board.fullmove_number(), 2);
}

TEST(Board, EnPassantPositionIsSetOnlyWhenACaptureIsPossible) {
    Board board;
    ASSERT_TRUE(board.move(at("e2"), at("e4")));
    EXPECT_EQ(board.en_passant_position(), 0u) << "no black pawn can take on e3";
    EXPECT_EQ(board.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");

    ASSERT_TRUE(board.move(at("a7"), at("a6")));
    ASSERT_TRUE(board.move(at("e4"), at("e5")));
    ASSERT_TRUE(board.move(at("d7"), at("d5")));
    EXPECT_EQ(board.en_passant_position(), at("d6"));
    EXPECT_EQ(board.fen(), "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    ASSERT_TRUE(board.move(at("e5"), at("d6")));
    EXPECT_EQ(board.black_pawns() & at("d5"), 0u) << "the captured pawn leaves d5";
    EXPECT_EQ(board.moves().back().captured_piece(), PAWN);
    EXPECT_EQ(board.moves().back().move.kind(), Move::EN_PASSANT);
}

TEST(Board, MoveRecordsHoldEverythingNeededToUndo) {
    Board board;
    const Key start_hash = board.hash();
    ASSERT_TRUE(board.move(Bitboard{1} << 12, Bitboard{1} << 28));  // e2e4 as masks
    ASSERT_EQ(board.moves().size(), 1u);
    const MoveRecord& first = board.moves()[0];
    EXPECT_EQ(first.start, Bitboard{1} << 12);
    EXPECT_EQ(first.end, Bitboard{1} << 28);
    EXPECT_EQ(first.moved, W_PAWN);
    EXPECT_EQ(first.captured, NO_PIECE);
    EXPECT_EQ(first.castle_type, CastleType::None);
    EXPECT_EQ(first.promotion, NO_PIECE_TYPE);
    EXPECT_EQ(first.castling_rights, ALL_CASTLING);
    EXPECT_EQ(first.en_passant_position, 0u);
    EXPECT_EQ(first.halfmove_clock, 0);
    EXPECT_EQ(first.hash, start_hash);

    // A capture records the captured side, piece and that piece kind's bitboard before it.
    board = board_at("4k3/8/8/3p4/8/4N3/8/4K3 w - - 7 30");
    const Bitboard pawns_before = board.black_pawns();
    ASSERT_TRUE(board.move(at("e3"), at("d5")));
    const MoveRecord& capture = board.moves().back();
    EXPECT_EQ(capture.moved, W_KNIGHT);
    EXPECT_EQ(capture.captured, B_PAWN);
    EXPECT_EQ(capture.captured_side(), BLACK);
    EXPECT_EQ(capture.captured_piece(), PAWN);
    EXPECT_EQ(capture.captured_bitboard, pawns_before);
    EXPECT_EQ(capture.halfmove_clock, 7);
    EXPECT_EQ(board.halfmove_clock(), 0);
    EXPECT_EQ(board.black_pawns(), 0u);

    // Castling records its type and the rights before the move.
    board = board_at("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 10");
    ASSERT_TRUE(board.move(at("e1"), at("g1")));
    EXPECT_EQ(board.moves().back().castle_type, CastleType::WhiteKingside);
    EXPECT_EQ(board.moves().back().castling_rights, ALL_CASTLING);
    EXPECT_EQ(board.white_rooks(), at("a1") | at("f1"));
    EXPECT_EQ(board.white_kings(), at("g1"));
    EXPECT_EQ(board.castling_rights(), BLACK_OO | BLACK_OOO);
    ASSERT_TRUE(board.move(at("e8"), at("c8")));
    EXPECT_EQ(board.moves().back().castle_type, CastleType::BlackQueenside);
    EXPECT_EQ(board.black_rooks(), at("d8") | at("h8"));
    EXPECT_EQ(board.castling_rights(), NO_CASTLING);

    // Promotion: a queen unless told otherwise; capturing a rook at home ends its right.
    board = board_at("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    ASSERT_TRUE(board.move(at("b7"), at("b8")));
    EXPECT_EQ(board.moves().back().promotion, QUEEN);
    EXPECT_EQ(board.white_queens(), at("b8"));
    EXPECT_EQ(board.white_pawns(), 0u);
    board = board_at("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    ASSERT_TRUE(board.move(at("b7"), at("a8"), ROOK));
    EXPECT_EQ(board.moves().back().promotion, ROOK);
    EXPECT_EQ(board.moves().back().captured_piece(), ROOK);
    EXPECT_EQ(board.moves().back().castling_rights, BLACK_OOO);
    EXPECT_EQ(board.white_rooks(), at("a8"));
    EXPECT_EQ(board.castling_rights(), NO_CASTLING);
}

TEST(Board, IllegalMoveReturnsFalseAndChangesNothing) {
    struct Case {
        const char* fen;
        Bitboard start, end;
        PieceType promotion;
    };
    const std::vector<Case> cases = {
        {START_FEN.data(), at("e2"), at("e5"), QUEEN},                     // too far
        {START_FEN.data(), at("e7"), at("e5"), QUEEN},                     // not this side's turn
        {START_FEN.data(), at("e2") | at("d2"), at("e4"), QUEEN},          // two bits
        {START_FEN.data(), 0, at("e4"), QUEEN},                            // no bit
        {START_FEN.data(), at("e3"), at("e4"), QUEEN},                     // empty square
        {"4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", at("e1"), at("d2"), QUEEN},    // into check
        {"4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", at("e2"), at("c3"), QUEEN},  // pinned
        {"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", at("b7"), at("b8"), KING},     // bad promotion
        {"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", at("b7"), at("b8"), PAWN},     // bad promotion
    };
    for (const Case& c : cases) {
        Board board = board_at(c.fen);
        const std::string fen = board.fen();
        const Key hash = board.hash();
        EXPECT_FALSE(board.move(c.start, c.end, c.promotion)) << c.fen;
        EXPECT_EQ(board.fen(), fen);
        EXPECT_EQ(board.hash(), hash);
        EXPECT_TRUE(board.moves().empty());
    }
}

// Everything a move could change, to compare a board before and after make/unmake.
struct Snapshot {
    std::string fen;
    Key hash;
    std::array<Bitboard, 14> bitboards;
    std::array<Piece, 64> squares;
    Score psq;
    Bitboard checkers;
    std::uint8_t castling;
    Square ep;
    int halfmove, ply;
    std::size_t history;

    explicit Snapshot(const Board& b)
        : fen(b.fen()),
          hash(b.hash()),
          bitboards{},
          squares{},
          psq(b.psq_score()),
          checkers(b.checkers()),
          castling(b.castling_rights()),
          ep(b.ep_square()),
          halfmove(b.halfmove_clock()),
          ply(b.game_ply()),
          history(b.moves().size()) {
        for (Color c : {WHITE, BLACK})
            for (int pt = PAWN; pt <= KING; ++pt)
                bitboards[c * 6 + pt - 1] = b.board(c, PieceType(pt));
        bitboards[12] = b.all_white();
        bitboards[13] = b.all_black();
        for (int i = 0; i < 64; ++i) squares[i] = b.piece_on(Square(i));
    }
    bool operator==(const Snapshot&) const = default;
};

// Returns a made-up but deterministic piece-square table: every entry differs.
PsqTable test_table() {
    PsqTable table{};
    for (int pt = PAWN; pt <= KING; ++pt) {
        for (int s = 0; s < 64; ++s) {
            table[make_piece(WHITE, PieceType(pt))][s] = make_score(100 * pt + s, 90 * pt - s);
            table[make_piece(BLACK, PieceType(pt))][s] =
                -make_score(100 * pt + (s ^ 56), 90 * pt - (s ^ 56));
        }
    }
    return table;
}

TEST(Board, MakeUnmakeRestoresEveryFieldForEveryLegalMove) {
    const PsqTable table = test_table();
    for (const std::string& fen : samples::sample_fens()) {
        Board board = board_at(fen);
        board.set_psq_table(&table);
        const Snapshot before(board);
        for (Move m : MoveList<GenType::All>(board)) {
            board.do_move(m);
            EXPECT_EQ(board.hash(), board.compute_hash()) << fen << " " << to_uci(m);
            EXPECT_EQ(board.moves().size(), before.history + 1);
            board.undo_move();
            EXPECT_TRUE(Snapshot(board) == before) << fen << " " << to_uci(m);
        }
    }
}

TEST(Board, RandomGamesKeepHashAndScoreIncrementalAndUnwindExactly) {
    const PsqTable table = test_table();
    std::mt19937_64 rng(7);
    for (const std::string& fen : samples::sample_fens()) {
        for (int game = 0; game < 3; ++game) {
            Board board = board_at(fen);
            board.set_psq_table(&table);
            std::vector<Snapshot> trail;
            for (int ply = 0; ply < 150; ++ply) {
                const Move m = samples::random_move(board, rng);
                if (!m) break;
                trail.emplace_back(board);
                board.do_move(m);
                ASSERT_EQ(board.hash(), board.compute_hash()) << board.fen();
                Board fresh = board_at(board.fen());
                fresh.set_psq_table(&table);
                ASSERT_EQ(board.hash(), fresh.hash())
                    << "same position, same hash: " << board.fen();
                ASSERT_EQ(board.psq_score(), fresh.psq_score()) << board.fen();
                ASSERT_EQ(board.checkers(), fresh.checkers()) << board.fen();
            }
            while (!trail.empty()) {
                board.undo_move();
                ASSERT_TRUE(Snapshot(board) == trail.back()) << trail.back().fen;
                trail.pop_back();
            }
            EXPECT_EQ(board.fen(), fen);
        }
    }
}

TEST(Board, GivesCheckAgreesWithPlayingTheMove) {
    std::mt19937_64 rng(11);
    int checks = 0;
    for (const std::string& fen : samples::sample_fens()) {
        Board board = board_at(fen);
        for (int ply = 0; ply < 100; ++ply) {
            for (Move m : MoveList<GenType::All>(board)) {
                const bool predicted = board.gives_check(m);
                board.do_move(m);
                EXPECT_EQ(predicted, board.in_check()) << board.fen() << " after " << to_uci(m);
                checks += board.in_check();
                board.undo_move();
            }
            const Move m = samples::random_move(board, rng);
            if (!m) break;
            board.do_move(m);
        }
    }
    EXPECT_GT(checks, 100);
}

TEST(Board, GivesCheckSeesCastlingEnPassantAndPromotionChecks) {
    Board castle = board_at("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
    EXPECT_TRUE(castle.gives_check(Move(SQ_E1, SQ_G1, Move::CASTLING)));

    Board en_passant = board_at("8/2p5/8/RP5k/8/8/8/4K3 b - - 0 1");
    ASSERT_TRUE(en_passant.move(at("c7"), at("c5")));
    EXPECT_TRUE(en_passant.gives_check(Move(SQ_B5, SQ_C6, Move::EN_PASSANT)))
        << "taking c5 opens the fifth rank to the king on h5";

    Board promotion = board_at("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    EXPECT_TRUE(promotion.gives_check(Move(SQ_B7, SQ_B8, Move::PROMOTION, QUEEN)));
    EXPECT_TRUE(promotion.gives_check(Move(SQ_B7, SQ_B8, Move::PROMOTION, ROOK)));
    EXPECT_FALSE(promotion.gives_check(Move(SQ_B7, SQ_B8, Move::PROMOTION, BISHOP)));
    EXPECT_FALSE(promotion.gives_check(Move(SQ_B7, SQ_B8, Move::PROMOTION, KNIGHT)));

    Board discovered = board_at("4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1");
    EXPECT_TRUE(discovered.gives_check(Move(SQ_E2, SQ_C3)));
    EXPECT_FALSE(discovered.gives_check(Move(SQ_G1, SQ_H1)));
}

TEST(Board, IsLegalAcceptsLegalMovesAndRejectsOthers) {
    Board board = board_at("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    EXPECT_TRUE(board.is_legal(Move(SQ_E1, SQ_D1)));
    EXPECT_FALSE(board.is_legal(Move(SQ_E2, SQ_C3)));  // pinned knight
    EXPECT_FALSE(board.is_legal(Move(SQ_E1, SQ_E2)));  // own piece
    EXPECT_FALSE(board.is_legal(Move(SQ_E7, SQ_E2)));  // the opponent's rook
    EXPECT_FALSE(board.is_legal(Move::none()));
    EXPECT_FALSE(board.is_legal(Move(SQ_E1, SQ_G1, Move::CASTLING)));
}

// Calls check(board) on the sample positions, a few double checks and pinned en passant
// captures that random games rarely reach, and the positions of random games from them.
template <typename Check>
void for_sample_game_positions(unsigned seed, int plies, Check&& check) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> fens = samples::sample_fens();
    for (const char* fen : {"4k3/7r/3N4/1B6/8/8/8/4K3 b - - 0 1",      // knight and bishop
                            "4k3/8/8/8/1b6/8/3r1n2/R3K2R w KQ - 0 1",  // rook and knight
                            "8/8/8/K2pP2q/8/8/8/7k w - d6 0 1",        // ep along a pinned rank
                            "4k3/8/8/2PpP3/8/8/8/3RK3 w - d6 0 1"})
        fens.push_back(fen);
    for (const std::string& fen : fens) {
        Board board = board_at(fen);
        for (int ply = 0; ply < plies; ++ply) {
            check(board);
            const Move m = samples::random_move(board, rng);
            if (!m) break;
            board.do_move(m);
        }
    }
}

TEST(Board, IsLegalAcceptsExactlyTheGeneratedMovesAmongAllEncodings) {
    // Every 16-bit move, whatever its kind and promotion bits, in positions with pins,
    // checks, castling, en passant and promotions: is_legal must say "the generator
    // writes this very move", as the hash move and killers rely on.
    int positions = 0;
    for_sample_game_positions(21, 60, [&](const Board& board) {
        std::vector<bool> generated(1 << 16);
        for (Move m : MoveList<GenType::All>(board)) generated[m.raw()] = true;
        for (int raw = 0; raw < (1 << 16); ++raw) {
            const Move m = Move::from_raw(static_cast<std::uint16_t>(raw));
            ASSERT_EQ(board.is_legal(m), generated[raw])
                << board.fen() << " " << to_uci(m) << " kind " << int(m.kind());
        }
        ++positions;
    });
    EXPECT_GT(positions, 300);
}

TEST(Board, KeyAfterIsTheHashAfterTheMoveUnlessItCreatesAnEnPassantSquare) {
    int moves = 0;
    for_sample_game_positions(22, 80, [&](Board board) {
        for (Move m : MoveList<GenType::All>(board)) {
            const Key predicted = board.key_after(m);
            board.do_move(m);
            if (board.ep_square() == SQ_NONE) {
                ASSERT_EQ(predicted, board.hash()) << board.fen() << " after " << to_uci(m);
                ++moves;
            }
            board.undo_move();
        }
    });
    EXPECT_GT(moves, 10000);
}

TEST(Board, NullMoveIsUndoneExactly) {
    const PsqTable table = test_table();
    Board board = board_at("rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    board.set_psq_table(&table);
    const Snapshot before(board);
    board.do_null_move();
    EXPECT_EQ(board.side(), BLACK);
    EXPECT_EQ(board.ep_square(), SQ_NONE);
    EXPECT_EQ(board.hash(), board.compute_hash());
    EXPECT_NE(board.hash(), before.hash);
    board.undo_null_move();
    EXPECT_TRUE(Snapshot(board) == before);
}

TEST(Board, UndoWithoutHistoryDoesNothing) {
    Board board;
    board.undo_move();
    board.undo_null_move();
    EXPECT_EQ(board.fen(), START_FEN);
}

TEST(Board, DetectsRepetitions) {
    Board board;
    EXPECT_FALSE(board.is_repetition());
    const char* cycle[][2] = {{"g1", "f3"}, {"g8", "f6"}, {"f3", "g1"}, {"f6", "g8"}};
    for (const auto& step : cycle) ASSERT_TRUE(board.move(at(step[0]), at(step[1])));
    EXPECT_TRUE(board.is_repetition());
    EXPECT_FALSE(board.is_threefold_repetition());
    for (const auto& step : cycle) ASSERT_TRUE(board.move(at(step[0]), at(step[1])));
    EXPECT_TRUE(board.is_threefold_repetition());

    // A pawn move is irreversible: nothing before it can repeat.
    ASSERT_TRUE(board.move(at("e2"), at("e4")));
    EXPECT_FALSE(board.is_repetition());

    // A null move cuts the history too.
    Board nulled;
    for (const auto& step : cycle) ASSERT_TRUE(nulled.move(at(step[0]), at(step[1])));
    nulled.do_null_move();
    nulled.do_null_move();
    EXPECT_FALSE(nulled.is_repetition());
}

TEST(Board, RecognisesInsufficientMaterial) {
    const std::vector<std::pair<const char*, bool>> cases = {
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},
        {"4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true},    // bishops on the same colour
        {"4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", false},  // opposite colours
        {"4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false},
        {"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/4KR2 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false},
    };
    for (const auto& [fen, insufficient] : cases)
        EXPECT_EQ(board_at(fen).is_insufficient_material(), insufficient) << fen;
}

TEST(Board, AppliesTheFiftyMoveRule) {
    EXPECT_FALSE(board_at("4k3/8/8/8/8/8/8/R3K3 w - - 99 80").is_fifty_move_draw());
    EXPECT_TRUE(board_at("4k3/8/8/8/8/8/8/R3K3 w - - 100 80").is_fifty_move_draw());
    EXPECT_TRUE(board_at("R3k3/8/8/4K3/8/8/8/8 b - - 100 80").is_fifty_move_draw());   // check
    EXPECT_FALSE(board_at("R3k3/8/4K3/8/8/8/8/8 b - - 100 80").is_fifty_move_draw());  // mate
    Board board = board_at("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    ASSERT_TRUE(board.move(at("a1"), at("a2")));
    EXPECT_TRUE(board.is_fifty_move_draw());
}

}  // namespace
}  // namespace sparring
