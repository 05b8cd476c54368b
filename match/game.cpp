#include "match/game.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring::match {

namespace {

struct Ending {
    Outcome outcome;
    Termination termination;
    std::string reason;
};

// Returns "White" or "Black".
std::string color_name(Color c) {
    return c == WHITE ? "White" : "Black";
}

// Returns white's outcome when colour c wins.
Outcome win_for(Color c) {
    return c == WHITE ? Outcome::Win : Outcome::Loss;
}

// Returns how the rules of chess end the game in this position, if they do.
std::optional<Ending> rules_ending(const Board& board) {
    if (MoveList<>(board).size() == 0) {
        if (board.in_check())
            return Ending{win_for(~board.side()), Termination::Checkmate,
                          color_name(~board.side()) + " mates"};
        return Ending{Outcome::Draw, Termination::Stalemate, "Draw by stalemate"};
    }
    if (board.is_insufficient_material())
        return Ending{Outcome::Draw, Termination::InsufficientMaterial,
                      "Draw by insufficient material"};
    if (board.is_threefold_repetition())
        return Ending{Outcome::Draw, Termination::ThreefoldRepetition,
                      "Draw by threefold repetition"};
    if (board.is_fifty_move_draw())
        return Ending{Outcome::Draw, Termination::FiftyMoves, "Draw by the fifty-move rule"};
    return std::nullopt;
}

// Returns the ending an adjudication verdict stands for, if any.
std::optional<Ending> adjudicated_ending(Adjudicator::Verdict verdict) {
    switch (verdict) {
        case Adjudicator::Verdict::None:
            return std::nullopt;
        case Adjudicator::Verdict::Draw:
            return Ending{Outcome::Draw, Termination::DrawAdjudication, "Draw by adjudication"};
        case Adjudicator::Verdict::WhiteWins:
            return Ending{Outcome::Win, Termination::ResignAdjudication,
                          "White wins by adjudication"};
        case Adjudicator::Verdict::BlackWins:
            return Ending{Outcome::Loss, Termination::ResignAdjudication,
                          "Black wins by adjudication"};
    }
    return std::nullopt;
}

// Returns the ending when the player of colour c fails to produce a move.
Ending fault_ending(Color c, const MoveReply& reply, bool timed, int timeout_ms) {
    Outcome outcome = win_for(~c);
    std::string who = color_name(c);
    switch (reply.status) {
        case MoveReply::Status::IllegalMove:
            return {outcome, Termination::IllegalMove, who + " makes an " + reply.error};
        case MoveReply::Status::Crashed:
            return {outcome, Termination::Crash, who + "'s engine crashed: " + reply.error};
        case MoveReply::Status::Stalled:
            if (timed)
                return {
                    outcome, Termination::TimeForfeit,
                    who + " loses on time (no move within " + std::to_string(timeout_ms) + " ms)"};
            return {outcome, Termination::Stalled, who + "'s engine stalled: " + reply.error};
        case MoveReply::Status::Ok:
            break;
    }
    return {outcome, Termination::Crash, who + "'s engine failed"};
}

// Returns the limits of the next move's search under a time control, with the clocks' time left;
// sets *timeout_ms to how long the move may take when the control bounds it (else it keeps the
// stall timeout it holds).
SearchLimits move_limits(const TimeControl& tc, const int time_left[COLOR_NB], Color us, int margin,
                         int* timeout_ms) {
    SearchLimits limits;
    switch (tc.kind) {
        case TimeControl::Kind::Nodes:
            limits.nodes = tc.nodes;
            break;
        case TimeControl::Kind::Depth:
            limits.depth = tc.depth;
            break;
        case TimeControl::Kind::MoveTime:
            limits.movetime_ms = tc.movetime_ms;
            *timeout_ms = tc.movetime_ms + margin;
            break;
        case TimeControl::Kind::Clock:
            for (Color c : {WHITE, BLACK}) {
                limits.time_ms[c] = std::max(time_left[c], 1);
                limits.inc_ms[c] = tc.inc_ms;
            }
            *timeout_ms = time_left[us] + margin;
            break;
    }
    return limits;
}

}  // namespace

// Maps each way a game ends to the PGN standard's Termination values.
std::string_view pgn_termination(Termination termination) {
    switch (termination) {
        case Termination::Checkmate:
        case Termination::Stalemate:
        case Termination::ThreefoldRepetition:
        case Termination::FiftyMoves:
        case Termination::InsufficientMaterial:
            return "normal";
        case Termination::DrawAdjudication:
        case Termination::ResignAdjudication:
        case Termination::MaxPlies:
            return "adjudication";
        case Termination::TimeForfeit:
            return "time forfeit";
        case Termination::IllegalMove:
            return "rules infraction";
        case Termination::Crash:
        case Termination::Stalled:
            return "abandoned";
    }
    return "unterminated";
}

// Asks the players for moves in turn, checking rules, clocks and adjudication after each.
std::optional<GameResult> play_game(Player& white, Player& black, const Opening& opening,
                                    const GameSettings& settings, const std::atomic<bool>& stop) {
    GameResult game;
    game.white = white.spec().name;
    game.black = black.spec().name;
    Board board;
    std::string why;
    if (!board.set_fen(opening.fen, &why))
        throw std::invalid_argument("bad opening FEN '" + opening.fen + "': " + why);
    game.start_fen = board.fen();
    std::vector<Move> moves;
    for (const std::string& text : opening.moves) {
        Move m = parse_uci(board, text);
        if (m.is_none())
            throw std::invalid_argument("illegal opening move '" + text + "' in " + board.fen());
        board.do_move(m);
        moves.push_back(m);
        game.moves.push_back(PlayedMove{m, true, std::nullopt, 0, 0});
    }
    // A fault's ending takes the faulty player's evidence.
    auto finish = [&](Ending ending, const Player* at_fault = nullptr) {
        if (at_fault) game.evidence = at_fault->fault_evidence();
        game.output_warnings = {white.take_output_warnings(), black.take_output_warnings()};
        game.outcome = ending.outcome;
        game.termination = ending.termination;
        game.reason = std::move(ending.reason);
        return std::move(game);
    };

    Player* players[COLOR_NB] = {&white, &black};
    for (Color c : {WHITE, BLACK}) {
        if (!players[c]->new_game(&why))
            return finish({win_for(~c), Termination::Crash,
                           color_name(c) + "'s engine failed to start: " + why},
                          players[c]);
    }

    const TimeControl& tc = settings.time_control;
    const bool clock = tc.kind == TimeControl::Kind::Clock;
    const bool timed = clock || tc.kind == TimeControl::Kind::MoveTime;
    int time_left[COLOR_NB] = {tc.base_ms, tc.base_ms};
    Adjudicator adjudicator(settings.adjudication);
    Adjudicator::Verdict verdict = Adjudicator::Verdict::None;
    while (true) {
        if (auto ending = rules_ending(board)) return finish(*ending);
        if (auto ending = adjudicated_ending(verdict)) return finish(*ending);
        if (settings.adjudication.max_plies > 0 &&
            static_cast<int>(game.moves.size()) >= settings.adjudication.max_plies)
            return finish({Outcome::Draw, Termination::MaxPlies, "Draw by maximum game length"});
        if (stop.load()) return std::nullopt;

        const Color us = board.side();
        Player& player = *players[us];
        const int margin = player.spec().time_margin_ms;
        int timeout_ms = settings.stall_timeout_ms;
        const SearchLimits limits = move_limits(tc, time_left, us, margin, &timeout_ms);

        auto start = std::chrono::steady_clock::now();
        MoveReply reply =
            player.play(GamePosition{game.start_fen, moves, board}, limits, timeout_ms);
        int elapsed = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - start)
                                           .count());
        if (reply.status != MoveReply::Status::Ok)
            return finish(fault_ending(us, reply, timed, timeout_ms), &player);
        if (timed && elapsed > timeout_ms)
            return finish({win_for(~us), Termination::TimeForfeit,
                           color_name(us) + " loses on time (" + std::to_string(elapsed) +
                               " ms, allowed " + std::to_string(timeout_ms) + " ms)"},
                          &player);
        if (clock) time_left[us] = std::max(time_left[us] - elapsed, 0) + tc.inc_ms;

        game.moves.push_back(PlayedMove{reply.move, false, reply.score, reply.depth, elapsed});
        board.do_move(reply.move);
        moves.push_back(reply.move);
        verdict = adjudicator.update(us, reply.score, board.fullmove_number());
    }
}

}  // namespace sparring::match
