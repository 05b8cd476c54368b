#include "cli/repro_replay.h"

#include <sstream>
#include <string_view>

#include "engine/board.h"
#include "engine/notation.h"
#include "match/child_process.h"
#include "match/transcript.h"

namespace sparring::cli {

namespace {

using Clock = match::ChildProcess::Clock;

// Returns the lines a replay sends: the game's sent lines up to and including its last `go`
// when its transcript is complete; else the handshake, the options, the position and the go.
std::vector<std::string> replay_lines(const v1::FaultyGame& game, bool* exact) {
    std::vector<std::string> lines;
    if (game.transcript_complete() && !game.transcript().empty())
        lines = match::sent_lines(game.transcript());
    size_t last_go = lines.size();
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i] == "go" || lines[i].starts_with("go ")) last_go = i;
    *exact = last_go < lines.size();
    // A fresh engine first gets the handshake and options a reused one got before the game.
    std::vector<std::string> replay = {"uci"};
    for (const v1::FaultEvidence::Option& o : game.options())
        replay.push_back("setoption name " + o.name() + " value " + o.value());
    replay.push_back("isready");
    if (*exact) {
        lines.resize(last_go + 1);
        if (lines.front() == "uci") return lines;
        replay.insert(replay.end(), lines.begin(), lines.end());
        return replay;
    }
    replay.insert(replay.end(), {"ucinewgame", "isready", game.position(), game.go()});
    return replay;
}

// Returns the board a `position` command sets up (the start position when it cannot be read).
Board board_of(const std::string& position) {
    Board board;
    std::istringstream in(position);
    std::string word, fen;
    in >> word >> word;
    if (word == "fen") {
        while (in >> word && word != "moves") fen += (fen.empty() ? "" : " ") + word;
    } else {
        in >> word;  // "moves", if any
    }
    if (fen.empty() || !board.set_fen(fen)) board.set_fen(START_FEN);
    while (in >> word) {
        const Move m = parse_uci(board, word);
        if (m.is_none()) break;
        board.do_move(m);
    }
    return board;
}

// Returns how long a `go` may take: its movetime or the mover's clock, plus the margin; the
// stall timeout for nodes and depth.
std::chrono::milliseconds allowed_time(const std::string& go, const Board& board,
                                       const ReplaySettings& settings) {
    std::istringstream in(go);
    std::string word;
    long long value = 0;
    const std::string clock = board.side() == WHITE ? "wtime" : "btime";
    while (in >> word)
        if ((word == "movetime" || word == clock) && in >> value)
            return std::chrono::milliseconds(value) + settings.margin;
    return settings.stall_timeout;
}

}  // namespace

ReplayOutcome replay_fault(const v1::FaultyGame& game, const ReplaySettings& settings) {
    ReplayOutcome outcome;
    const std::vector<std::string> lines = replay_lines(game, &outcome.exact);
    for (const std::string& line : lines)
        if (line == "go" || line.starts_with("go ")) ++outcome.go_count;
    match::ChildProcess process;
    match::ChildOptions options;
    options.capture_stderr = true;
    std::string error;
    if (!process.start(settings.command, {}, options, &error)) {
        outcome.fault = v1::GAME_ENDING_CRASH;
        outcome.what = "could not be started: " + error;
        return outcome;
    }
    const auto crashed = [&](const std::string& when) {
        outcome.fault = v1::GAME_ENDING_CRASH;
        outcome.what = "crashed (" + process.stop(std::chrono::milliseconds(1000)) + ") " + when;
        outcome.stderr_tail = process.stderr_tail();
        return outcome;
    };
    std::string position = "position startpos";
    for (const std::string& line : lines) {
        if (line.starts_with("position ")) position = line;
        const bool go = line == "go" || line.starts_with("go ");
        if (go) ++outcome.go_index;
        if (!process.write_line(line)) return crashed("before '" + line + "'");
        std::string_view awaited = line == "uci"       ? "uciok"
                                   : line == "isready" ? "readyok"
                                   : go                ? "bestmove"
                                                       : "";
        if (awaited.empty()) continue;
        const Board board = board_of(position);
        const auto limit =
            go ? allowed_time(line, board, settings) : std::chrono::milliseconds(10000);
        const auto deadline = Clock::now() + limit;
        std::string reply;
        while (true) {
            const match::ChildProcess::ReadStatus status = process.read_line(&reply, deadline);
            if (status == match::ChildProcess::ReadStatus::Closed)
                return crashed("at '" + line + "'");
            if (status == match::ChildProcess::ReadStatus::Timeout) {
                outcome.fault = go && limit != settings.stall_timeout ? v1::GAME_ENDING_TIME_LOSS
                                                                      : v1::GAME_ENDING_STALL;
                outcome.what = "gave no '" + std::string(awaited) + "' within " +
                               std::to_string(limit.count()) + " ms of '" + line + "'";
                process.stop(std::chrono::milliseconds(0));
                outcome.stderr_tail = process.stderr_tail();
                return outcome;
            }
            if (!reply.starts_with(awaited)) continue;
            if (go) {
                std::istringstream in(reply);
                std::string keyword, move;
                in >> keyword >> move;
                if (parse_uci(board, move).is_none()) {
                    outcome.fault = v1::GAME_ENDING_ILLEGAL_MOVE;
                    outcome.what = "answered the illegal move '" + move + "'";
                    process.stop(std::chrono::milliseconds(0));
                    outcome.stderr_tail = process.stderr_tail();
                    return outcome;
                }
                outcome.what = "answered the legal move " + move;
            }
            break;
        }
    }
    process.write_line("quit");
    process.stop(std::chrono::milliseconds(1000));
    outcome.stderr_tail = process.stderr_tail();
    return outcome;
}

}  // namespace sparring::cli
