#include "match/uci_player.h"

#include <algorithm>
#include <sstream>

#include "engine/notation.h"
#include "match/uci_options.h"

namespace sparring::match {

namespace {

using Clock = ChildProcess::Clock;
using std::chrono::milliseconds;

constexpr milliseconds HandshakeTimeout{10000};  // uciok, readyok
constexpr milliseconds StopGrace{1000};          // bestmove after stop, exit after quit

// Returns the `position` command for the game so far.
std::string position_command(const GamePosition& position) {
    std::string command = "position ";
    if (position.start_fen == START_FEN) {
        command += "startpos";
    } else {
        command += "fen ";
        command += position.start_fen;
    }
    if (!position.moves.empty()) {
        command += " moves";
        for (Move m : position.moves) {
            command += ' ';
            command += to_uci(m);
        }
    }
    return command;
}

// Returns the `go` command for the limits.
std::string go_command(const SearchLimits& limits) {
    std::string command = "go";
    if (limits.nodes) command += " nodes " + std::to_string(limits.nodes);
    if (limits.depth) command += " depth " + std::to_string(limits.depth);
    if (limits.movetime_ms) command += " movetime " + std::to_string(limits.movetime_ms);
    if (limits.time_ms[WHITE] || limits.time_ms[BLACK])
        command += " wtime " + std::to_string(limits.time_ms[WHITE]) + " btime " +
                   std::to_string(limits.time_ms[BLACK]) + " winc " +
                   std::to_string(limits.inc_ms[WHITE]) + " binc " +
                   std::to_string(limits.inc_ms[BLACK]);
    return command;
}

// Takes the depth, score and nodes of an `info` line into *reply.
void read_info(const std::string& line, MoveReply* reply) {
    std::istringstream in(line);
    std::string token;
    in >> token;
    while (in >> token) {
        if (token == "string") return;
        if (token == "depth") {
            in >> reply->depth;
        } else if (token == "nodes") {
            in >> reply->nodes;
        } else if (token == "score") {
            std::string kind;
            int value = 0;
            if (in >> kind >> value && (kind == "cp" || kind == "mate"))
                reply->score = EngineScore{value, kind == "mate"};
        }
    }
}

}  // namespace

ChildOptions child_options_of(const UciSpec& engine) {
    ChildOptions options = engine.confinement;
    options.working_dir = engine.working_dir;
    options.capture_stderr = true;  // the evidence of a faulty game (match/transcript.h)
    return options;
}

// Keeps the spec; the engine starts with the first game.
UciPlayer::UciPlayer(PlayerSpec spec)
    : spec_(std::move(spec)), uci_(std::get<UciSpec>(spec_.engine)) {
    process_.set_transcript(&transcript_);
}

// Asks the engine to quit, and kills it if it does not.
UciPlayer::~UciPlayer() {
    if (process_.running() && ready_) process_.write_line("quit");
    process_.stop(StopGrace);
}

// Checks the options, starts the engine, runs the uci handshake, sets the options and waits
// until ready.
bool UciPlayer::start(std::string* error) {
    std::string why = check_uci_options(uci_.options);
    if (!why.empty()) {
        if (error) *error = why;
        return false;
    }
    if (!process_.start(uci_.command, uci_.args, child_options_of(uci_), &why)) {
        if (error) *error = why;
        return false;
    }
    // A line the engine can no longer take (it exited, say on an option value it refuses)
    // is not an error of its own: wait_for then reads the end of its output and says how the
    // engine ended.
    process_.write_line("uci");
    if (!wait_for("uciok", error)) return false;
    for (const auto& [name, value] : uci_.options)
        process_.write_line("setoption name " + name + " value " + value);
    process_.write_line("isready");
    if (!wait_for("readyok", error)) return false;
    ready_ = true;
    return true;
}

// Reads lines until one starts with token; stops the engine on a timeout or exit.
bool UciPlayer::wait_for(std::string_view token, std::string* error) {
    auto deadline = Clock::now() + HandshakeTimeout;
    std::string line;
    while (true) {
        ChildProcess::ReadStatus status = process_.read_line(&line, deadline);
        if (status == ChildProcess::ReadStatus::Line) {
            if (line.rfind(token, 0) == 0) return true;
            continue;
        }
        std::string ended = process_.stop(milliseconds(100));
        if (error)
            *error = status == ChildProcess::ReadStatus::Timeout
                         ? "no '" + std::string(token) + "' within " +
                               std::to_string(HandshakeTimeout.count() / 1000) + " s"
                         : "exited (" + ended + ") before '" + std::string(token) + "'";
        ready_ = false;
        return false;
    }
}

// Sends ucinewgame and waits until ready, restarting the engine if that fails.
bool UciPlayer::new_game(std::string* error) {
    transcript_.begin();
    checks_.start_game(&process_);  // output after the last game's last bestmove counts here
    if (!ready_ && !start(error)) return false;
    if (process_.write_line("ucinewgame") && process_.write_line("isready") &&
        wait_for("readyok", error))
        return true;
    return start(error);
}

bool UciPlayer::reconfigure(const PlayerSpec& spec, std::string* error) {
    const auto fail = [error](std::string why) {
        if (error) *error = std::move(why);
        return false;
    };
    const auto* uci = std::get_if<UciSpec>(&spec.engine);
    if (!uci || uci->command != uci_.command || uci->args != uci_.args ||
        uci->working_dir != uci_.working_dir)
        return fail("not the same UCI engine");
    if (std::string why = check_uci_options(uci->options); !why.empty()) return fail(why);
    // Every option set now must stay set: a value can change, but not go back to the
    // engine's default without a restart.
    std::vector<std::pair<std::string, std::string>> changed;
    for (const auto& option : uci->options) {
        const auto now = std::find_if(uci_.options.begin(), uci_.options.end(),
                                      [&](const auto& o) { return o.first == option.first; });
        if (now == uci_.options.end() || now->second != option.second) changed.push_back(option);
    }
    for (const auto& option : uci_.options)
        if (std::none_of(uci->options.begin(), uci->options.end(),
                         [&](const auto& o) { return o.first == option.first; }))
            return fail("option '" + option.first + "' would go back to its default");
    spec_.name = spec.name;
    spec_.time_margin_ms = spec.time_margin_ms;
    std::get<UciSpec>(spec_.engine).options = uci->options;
    // A running engine takes the new values now (the next game's isready waits for them); one
    // not running gets every option when it starts.
    if (ready_)
        for (const auto& [name, value] : changed)
            if (!process_.write_line("setoption name " + name + " value " + value)) ready_ = false;
    return true;
}

std::optional<FaultEvidence> UciPlayer::fault_evidence() const {
    return uci_fault_evidence(uci_, transcript_, process_);
}

// Returns a failed reply.
MoveReply UciPlayer::fail(MoveReply::Status status, std::string error) {
    MoveReply reply;
    reply.status = status;
    reply.error = std::move(error);
    return reply;
}

// Sends the position and the go command, then reads info lines until bestmove.
MoveReply UciPlayer::play(const GamePosition& position, const SearchLimits& limits,
                          int timeout_ms) {
    if (!ready_) return fail(MoveReply::Status::Crashed, "not running");
    const std::string go = go_command(limits);
    checks_.go(&process_, go);  // counts output after the last bestmove, then checks this search
    if (!process_.write_line(position_command(position) + "\n" + go)) {
        ready_ = false;
        return fail(MoveReply::Status::Crashed, "exited (" + process_.stop(StopGrace) + ")");
    }
    MoveReply reply;
    auto deadline = Clock::now() + milliseconds(timeout_ms);
    bool late = false;
    std::string line;
    while (true) {
        ChildProcess::ReadStatus status = process_.read_line(&line, deadline);
        if (status == ChildProcess::ReadStatus::Closed) {
            ready_ = false;
            return fail(MoveReply::Status::Crashed, "exited (" + process_.stop(StopGrace) + ")");
        }
        if (status == ChildProcess::ReadStatus::Timeout) {
            // Give a late engine a moment to answer `stop`, so it can play the next game
            // without a restart; one that still does not answer is killed.
            if (late) {
                ready_ = false;
                process_.stop(milliseconds(0));
                break;
            }
            late = true;
            process_.write_line("stop");
            deadline = Clock::now() + StopGrace;
            continue;
        }
        if (line.rfind("info ", 0) == 0) {
            read_info(line, &reply);
            checks_.info(position.board, line);
        } else if (line.rfind("bestmove", 0) == 0) {
            checks_.bestmove(line);
            if (late) break;
            std::istringstream in(line);
            std::string keyword;
            in >> keyword >> reply.text;
            reply.move = parse_uci(position.board, reply.text);
            if (reply.move.is_none()) {
                reply.status = MoveReply::Status::IllegalMove;
                reply.error = "illegal move '" + reply.text + "'";
            }
            return reply;
        }
    }
    return fail(MoveReply::Status::Stalled,
                "no bestmove within " + std::to_string(timeout_ms) + " ms");
}

}  // namespace sparring::match
