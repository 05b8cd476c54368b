// Drives the bitboard engine and the mailbox oracle through the same positions and records
// every difference with the FEN where it appears.
#include "differential/differential.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <random>

#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "mailbox/mailbox.h"

namespace sparring::differential {
namespace {

constexpr std::size_t KEPT_MISMATCHES = 20;

// A legal move as both generators see it, with what the oracle says about it.
struct PairedMove {
    std::string uci;
    Move engine;
    mailbox::Move oracle;
    mailbox::Position after;
    bool capture = false;
    bool check = false;
    bool castling = false;
    bool en_passant = false;
};

// Records a difference, keeping the text of the first few.
void report(Tally& tally, std::string text) {
    ++tally.mismatch_count;
    if (tally.mismatches.size() < KEPT_MISMATCHES) tally.mismatches.push_back(std::move(text));
}

// Returns the strings of sorted a that sorted b lacks, joined by spaces.
std::string only_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> rest;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(rest));
    std::string text;
    for (const std::string& s : rest) text += (text.empty() ? "" : " ") + s;
    return text.empty() ? "(none)" : text;
}

// Describes how the engine's and the mailbox's sorted move lists differ in one position.
std::string list_difference(std::string_view what, const Board& board, const mailbox::Position& pos,
                            const std::vector<std::string>& engine,
                            const std::vector<std::string>& oracle) {
    std::string text = std::string(what) + " differ at " + board.fen();
    if (mailbox::to_fen(pos) != board.fen()) text += " (mailbox FEN " + mailbox::to_fen(pos) + ")";
    return text + "\n  engine only: " + only_in(engine, oracle) +
           "\n  mailbox only: " + only_in(oracle, engine) + "\n  counts: engine " +
           std::to_string(engine.size()) + ", mailbox " + std::to_string(oracle.size());
}

// Returns the engine's legal moves of kind T in UCI, sorted.
template <GenType T>
std::vector<std::string> engine_moves(const Board& board) {
    std::vector<std::string> texts;
    for (Move m : MoveList<T>(board)) texts.push_back(to_uci(m));
    std::sort(texts.begin(), texts.end());
    return texts;
}

// Pairs the two generators' legal moves (known to be equal as UCI) and classifies them.
std::vector<PairedMove> pair_moves(const Board& board, const mailbox::Position& pos) {
    std::vector<PairedMove> moves;
    for (Move m : MoveList<GenType::All>(board)) moves.push_back({to_uci(m), m, {}, {}});
    std::sort(moves.begin(), moves.end(),
              [](const PairedMove& a, const PairedMove& b) { return a.uci < b.uci; });
    std::vector<mailbox::Move> oracle = mailbox::legal_moves(pos);
    std::sort(oracle.begin(), oracle.end(), [](const mailbox::Move& a, const mailbox::Move& b) {
        return mailbox::to_uci(a) < mailbox::to_uci(b);
    });
    for (std::size_t i = 0; i < moves.size(); ++i) {
        PairedMove& p = moves[i];
        p.oracle = oracle[i];
        p.after = mailbox::make_move(pos, p.oracle);
        const int code = std::abs(pos.cells[p.oracle.from]);
        p.en_passant = code == mailbox::PAWN && p.oracle.to == pos.en_passant;
        p.capture = pos.cells[p.oracle.to] != mailbox::EMPTY || p.en_passant;
        p.castling = code == mailbox::KING && std::abs(p.oracle.to - p.oracle.from) == 2;
        p.check = mailbox::in_check(p.after);
    }
    return moves;
}

// Compares the move lists and per-move facts of one position; fills moves with the legal
// moves and returns false when the move lists themselves differ.
bool compare_position(const Board& board, const mailbox::Position& pos, Tally& tally,
                      std::vector<PairedMove>& moves) {
    ++tally.positions;
    const std::vector<std::string> all = engine_moves<GenType::All>(board);
    const std::vector<std::string> oracle = mailbox::legal_moves_uci(pos);
    if (all != oracle) {
        report(tally, list_difference("legal moves", board, pos, all, oracle));
        return false;
    }
    moves = pair_moves(board, pos);
    const std::string fen = board.fen();
    std::vector<std::string> captures;
    std::vector<std::string> quiets;
    for (const PairedMove& m : moves) {
        const bool tactical = m.capture || m.oracle.promotion != mailbox::EMPTY;
        (tactical ? captures : quiets).push_back(m.uci);
        if (board.is_capture(m.engine) != m.capture)
            report(tally, "is_capture(" + m.uci + ") is wrong at " + fen);
        if (board.gives_check(m.engine) != m.check)
            report(tally, "gives_check(" + m.uci + ") is wrong at " + fen);
        if (parse_uci(board, m.uci) != m.engine)
            report(tally, "parse_uci(\"" + m.uci + "\") does not give the move at " + fen);
    }
    const std::vector<std::string> engine_captures = engine_moves<GenType::Captures>(board);
    if (engine_captures != captures)
        report(tally, list_difference("GenType::Captures", board, pos, engine_captures, captures));
    const std::vector<std::string> engine_quiets = engine_moves<GenType::Quiets>(board);
    if (engine_quiets != quiets)
        report(tally, list_difference("GenType::Quiets", board, pos, engine_quiets, quiets));
    if (board.in_check() != mailbox::in_check(pos)) report(tally, "in_check() is wrong at " + fen);
    if (count_legal_moves(board) != static_cast<int>(moves.size()))
        report(tally, "count_legal_moves() differs from the move list at " + fen);
    return true;
}

// Describes where the two perft trees below a position first differ.
std::string locate_divergence(Board& board, const mailbox::Position& pos, int depth) {
    const std::vector<std::string> all = engine_moves<GenType::All>(board);
    const std::vector<std::string> oracle = mailbox::legal_moves_uci(pos);
    if (all != oracle) return list_difference("legal moves", board, pos, all, oracle);
    if (depth <= 1) return "the engine's bulk count differs from its move list at " + board.fen();
    for (const PairedMove& m : pair_moves(board, pos)) {
        board.do_move(m.engine);
        const bool differs = perft(board, depth - 1) != mailbox::perft(m.after, depth - 1);
        const std::string where = differs ? locate_divergence(board, m.after, depth - 1) : "";
        board.undo_move();
        if (differs) return "after " + m.uci + ": " + where;
    }
    return "no child differs below " + board.fen();
}

// Compares the perft counts of one position and checks that perft restored the board.
void compare_perft(Board& board, const mailbox::Position& pos, int depth, Tally& tally) {
    ++tally.perft_checks;
    const std::string fen = board.fen();
    const std::uint64_t engine_nodes = perft(board, depth);
    const std::uint64_t oracle_nodes = mailbox::perft(pos, depth);
    if (board.fen() != fen) {
        report(tally, "perft(" + std::to_string(depth) + ") did not restore " + fen);
        return;
    }
    if (engine_nodes != oracle_nodes)
        report(tally, "perft(" + std::to_string(depth) + ") at " + fen + ": engine " +
                          std::to_string(engine_nodes) + ", mailbox " +
                          std::to_string(oracle_nodes) + "; " +
                          locate_divergence(board, pos, depth));
}

// Sets up fen on both boards; returns false (reporting why) unless both accept it alike.
bool set_up(std::string_view fen, Board& board, mailbox::Position& pos, Tally& tally) {
    std::string error;
    if (!board.set_fen(fen, &error)) {
        report(tally, "the engine rejects " + std::string(fen) + ": " + error);
        return false;
    }
    const std::optional<mailbox::Position> parsed = mailbox::parse_fen(fen, &error);
    if (!parsed) {
        report(tally, "the mailbox rejects " + std::string(fen) + ": " + error);
        return false;
    }
    pos = *parsed;
    if (board.fen() != mailbox::to_fen(pos)) {
        report(tally, "FEN after set-up differs: engine " + board.fen() + ", mailbox " +
                          mailbox::to_fen(pos));
        return false;
    }
    return true;
}

// Plays one move on the engine, counts its kind and checks the FEN against the oracle's.
bool play(Board& board, const PairedMove& m, Tally& tally) {
    const std::string before = board.fen();
    board.do_move(m.engine);
    ++tally.moves_played;
    tally.captures += m.capture;
    tally.checks += m.check;
    tally.castlings += m.castling;
    tally.en_passants += m.en_passant;
    tally.promotions += m.oracle.promotion != mailbox::EMPTY;
    if (board.fen() == mailbox::to_fen(m.after)) return true;
    report(tally, "FEN after " + m.uci + " from " + before + " differs\n  engine:  " + board.fen() +
                      "\n  mailbox: " + mailbox::to_fen(m.after));
    return false;
}

// Returns a random move, special moves weighted up so that games reach them often.
const PairedMove& pick(const std::vector<PairedMove>& moves, std::mt19937_64& rng) {
    auto weight = [](const PairedMove& m) -> std::uint64_t {
        return 1 + 3 * m.capture + 4 * m.check + 20 * m.castling + 40 * m.en_passant +
               10 * (m.oracle.promotion != mailbox::EMPTY);
    };
    std::uint64_t total = 0;
    for (const PairedMove& m : moves) total += weight(m);
    std::uint64_t r = rng() % total;
    for (const PairedMove& m : moves) {
        if (r < weight(m)) return m;
        r -= weight(m);
    }
    return moves.back();
}

// Plays one random game, then takes every move back checking that each FEN comes back.
void play_game(std::string_view fen, const GameOptions& options, std::mt19937_64& rng,
               Tally& tally) {
    Board board;
    mailbox::Position pos;
    if (!set_up(fen, board, pos, tally)) return;
    std::vector<std::string> fens = {board.fen()};
    std::vector<PairedMove> moves;
    for (int ply = 0; ply < options.max_plies; ++ply) {
        if (!compare_position(board, pos, tally, moves)) break;
        if (tally.positions % options.perft_every == 0) {
            const bool deep = tally.positions % options.deep_perft_every == 0;
            compare_perft(board, pos, options.perft_depth + deep, tally);
        }
        if (moves.empty()) break;
        const PairedMove chosen = pick(moves, rng);
        const bool same = play(board, chosen, tally);
        fens.push_back(board.fen());
        if (!same) break;
        pos = chosen.after;
    }
    for (std::size_t i = fens.size() - 1; i > 0; --i) {
        board.undo_move();
        if (board.fen() != fens[i - 1]) {
            report(tally, "undo_move() from " + fens[i] + " gives " + board.fen() + ", expected " +
                              fens[i - 1]);
            return;
        }
    }
}

// Compares a position and, down to depth, every position below it; stops at a difference.
bool walk(Board& board, const mailbox::Position& pos, int depth, Tally& tally) {
    std::vector<PairedMove> moves;
    if (!compare_position(board, pos, tally, moves)) return false;
    if (depth == 0) return true;
    const std::string before = board.fen();
    for (const PairedMove& m : moves) {
        const bool same = play(board, m, tally) && walk(board, m.after, depth - 1, tally);
        board.undo_move();
        if (board.fen() != before) {
            report(tally,
                   "undo_move() of " + m.uci + " gives " + board.fen() + ", expected " + before);
            return false;
        }
        if (!same) return false;
    }
    return true;
}

}  // namespace

Tally& Tally::operator+=(const Tally& other) {
    positions += other.positions;
    moves_played += other.moves_played;
    perft_checks += other.perft_checks;
    captures += other.captures;
    checks += other.checks;
    castlings += other.castlings;
    en_passants += other.en_passants;
    promotions += other.promotions;
    mismatch_count += other.mismatch_count;
    for (const std::string& text : other.mismatches)
        if (mismatches.size() < KEPT_MISMATCHES) mismatches.push_back(text);
    return *this;
}

Tally play_random_games(std::string_view fen, const GameOptions& options) {
    Tally tally;
    std::mt19937_64 rng(options.seed);
    for (int game = 0; game < options.games; ++game) play_game(fen, options, rng, tally);
    return tally;
}

Tally compare_tree(std::string_view fen, int depth) {
    Tally tally;
    Board board;
    mailbox::Position pos;
    if (set_up(fen, board, pos, tally)) walk(board, pos, depth, tally);
    return tally;
}

std::string summary(const Tally& tally) {
    return std::to_string(tally.positions) + " positions compared, " +
           std::to_string(tally.moves_played) + " moves played (FEN compared after each), " +
           std::to_string(tally.perft_checks) + " perft comparisons; played " +
           std::to_string(tally.captures) + " captures, " + std::to_string(tally.checks) +
           " checks, " + std::to_string(tally.castlings) + " castlings, " +
           std::to_string(tally.en_passants) + " en passant, " + std::to_string(tally.promotions) +
           " promotions; " + std::to_string(tally.mismatch_count) + " mismatches";
}

void expect_agreement(const Tally& tally, std::uint64_t min_positions) {
    std::cout << "[ differential ] " << summary(tally) << '\n';
    testing::Test::RecordProperty("positions", static_cast<int>(tally.positions));
    testing::Test::RecordProperty("mismatches", static_cast<int>(tally.mismatch_count));
    EXPECT_GE(tally.positions, min_positions);
    for (const std::string& text : tally.mismatches) ADD_FAILURE() << text;
    EXPECT_EQ(tally.mismatch_count, 0u);
}

}  // namespace sparring::differential
