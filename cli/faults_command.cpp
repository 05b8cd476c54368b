// `sparring faults RUN`: a run's games lost by an engine's fault, with what is kept of each;
// `sparring repro RUN GAME [--run]`: one faulty game's evidence, and its replay on this machine.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/repro_replay.h"
#include "common/printable.h"
#include "proto/text.h"
#include "proto/time_control.h"

namespace sparring::cli {

namespace {

// Returns a fault's name as `show` writes it ("crash", "illegal move").
std::string fault_name(v1::GameEnding fault) {
    std::string name = v1::GameEnding_Name(fault).substr(sizeof "GAME_ENDING_" - 1);
    for (char& c : name) c = c == '_' ? ' ' : char(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

// Returns the last `lines` lines of text (all of it when lines is 0), each made printable.
std::string tail_of(const std::string& text, size_t lines, size_t* total) {
    std::vector<std::string_view> all;
    std::string_view rest = text;
    while (!rest.empty()) {
        const size_t newline = rest.find('\n');
        all.push_back(rest.substr(0, newline));
        rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    }
    *total = all.size();
    std::string out;
    for (size_t i = lines == 0 || all.size() <= lines ? 0 : all.size() - lines; i < all.size(); ++i)
        out += "  " + printable(all[i], 2000) + "\n";
    return out;
}

// The flags of `sparring faults`.
struct FaultsFlags : CommonFlags {
    int64_t max_games = 200;

    // Declares the flags on app.
    explicit FaultsFlags(CLI::App& app) {
        in_range(add_flag(app, "max-games", max_games, "N",
                          "list at most N faulty games, in game order (default 200)"),
                 1, 10000);
        declare_common(app);
    }
};

// Runs `faults RUN`.
int faults(const FaultsFlags& args) {
    v1::ListFaultsRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    request.set_max_games(uint32_t(args.max_games));
    RemoteClient client(args.remote);
    v1::ListFaultsResponse response;
    client.call(&v1::UserService::Stub::ListFaults, request, &response);
    if (print_if_json(args.json, response)) return 0;
    std::cout << "run " << request.run_id() << ": " << response.total() << " games lost by faults";
    if (response.total() == 0) {
        std::cout << "\n";
        return 0;
    }
    std::cout << " (evidence kept for the first " << response.evidence_bound()
              << " of each version and fault)\n\n";
    std::cout << std::left << std::setw(16) << "version" << std::setw(14) << "fault" << std::right
              << std::setw(7) << "games" << std::setw(15) << "with evidence"
              << "\n";
    for (const v1::FaultKindCount& c : response.counts())
        std::cout << std::left << std::setw(16) << printable(c.version()) << std::setw(14)
                  << fault_name(c.fault()) << std::right << std::setw(7) << c.games()
                  << std::setw(15) << c.with_evidence() << "\n";
    std::cout << "\n"
              << std::setw(6) << "game"
              << "  " << std::left << std::setw(14) << "worker" << std::setw(16) << "version"
              << std::setw(14) << "fault" << std::setw(10) << "evidence"
              << "reason\n";
    for (const v1::FaultyGame& g : response.games())
        std::cout << std::right << std::setw(6) << g.game() << "  " << std::left << std::setw(14)
                  << (printable(g.worker_name()) + " (" + std::to_string(g.worker_id()) + ")")
                  << std::setw(16) << printable(g.version()) << std::setw(14)
                  << fault_name(g.fault()) << std::setw(10) << (g.has_evidence() ? "yes" : "-")
                  << printable(g.reason(), 200) << "\n";
    if (uint64_t(response.games_size()) < response.total())
        std::cout << "(" << response.total() - uint64_t(response.games_size())
                  << " more; --max-games N lists more)\n";
    std::cout << std::right << "\n`sparring repro " << request.run_id()
              << " GAME` shows a game's evidence; with --run it replays it here.\n";
    return 0;
}

// The flags of `sparring repro`.
struct ReproFlags : CommonFlags {
    bool run = false;
    std::optional<std::string> engine;
    int64_t lines = 40;
    int64_t stall_seconds = 30;

    // Declares the flags on app.
    explicit ReproFlags(CLI::App& app) {
        add_switch(app, "run", run,
                   "replay the game's UCI exchange against the engine here and say whether the "
                   "fault comes again (exit status 0: it does, 1: it does not)");
        add_flag(app, "engine", engine, "PATH",
                 "the engine to replay with (default: the UCI version's own command, as "
                 "the coordinator records it; needed for an uploaded build or the built-in "
                 "engine)");
        in_range(add_flag(app, "lines", lines, "N",
                          "show the last N lines of the transcript and stderr (0: all; "
                          "default 40)"),
                 0, 1'000'000);
        in_range(add_flag(app, "stall-seconds", stall_seconds, "S",
                          "--run: a node- or depth-limited search taking longer stalls "
                          "(default 30)"),
                 1, 3600);
        declare_common(app);
    }
};

// Prints a faulty game's evidence.
void print_evidence(const v1::FaultyGame& g, size_t lines) {
    std::cout << "run " << g.run_id() << ", game " << g.game() << ": " << printable(g.version())
              << " lost by " << fault_name(g.fault()) << " on worker " << printable(g.worker_name())
              << " (" << g.worker_id() << ")\n";
    std::cout << "reason:       " << printable(g.reason(), 2000) << "\n";
    std::cout << "engine:       " << printable(g.engine()) << "\n";
    if (!g.has_evidence() && g.command().empty()) {
        std::cout << "no evidence stored: the worker sent none (a built-in engine, an older "
                     "worker)\n";
        return;
    }
    std::string command = g.command();
    for (const std::string& arg : g.args()) command += " " + arg;
    std::cout << "command:      " << printable(command, 2000) << "\n";
    std::string options;
    for (const v1::FaultEvidence::Option& o : g.options())
        options += (options.empty() ? "" : ", ") + o.name() + "=" + o.value();
    std::cout << "options:      " << (options.empty() ? "(none)" : printable(options, 2000))
              << "\n";
    std::cout << "threads:      " << g.threads() << "\n";
    std::cout << "time control: " << time_control_text(g.time_control()) << "\n";
    std::cout << "position:     " << printable(g.position(), 4000) << "\n";
    std::cout << "go:           " << printable(g.go()) << "\n";
    if (!g.has_evidence()) {
        std::cout << "(transcript and stderr not stored: past the bound of the run's games of "
                     "this version and fault)\n";
        return;
    }
    size_t total = 0;
    const std::string transcript = tail_of(g.transcript(), lines, &total);
    std::cout << "\ntranscript ("
              << (lines && total > lines
                      ? "last " + std::to_string(lines) + " of " + std::to_string(total)
                      : std::to_string(total))
              << " lines; ms from the game's start, > to the engine, < from it"
              << (g.transcript_complete() ? "" : "; its middle left out") << "):\n"
              << transcript;
    const std::string stderr_tail = tail_of(g.stderr_tail(), lines, &total);
    std::cout << "\nstderr (" << g.stderr_bytes() << " bytes in all"
              << (total
                      ? ", last " + std::to_string(std::min<size_t>(total, lines ? lines : total)) +
                            " lines"
                      : "")
              << "):\n"
              << (stderr_tail.empty() ? "  (nothing)\n" : stderr_tail);
}

// Runs `repro RUN GAME`.
int repro(const ReproFlags& args) {
    if (args.arguments.size() != 2)
        throw UsageError("give a run id and a game number (see `sparring faults RUN`)");
    v1::GetFaultRequest request;
    request.set_run_id(parse_run_id(args.arguments[0]));
    try {
        size_t used = 0;
        request.set_game(std::stoull(args.arguments[1], &used));
        if (used != args.arguments[1].size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
        throw UsageError("'" + args.arguments[1] + "' is not a game number");
    }
    RemoteClient client(args.remote);
    v1::FaultyGame game;
    client.call(&v1::UserService::Stub::GetFault, request, &game);
    if (args.json && !args.run) return print_if_json(true, game) ? 0 : 1;
    if (!args.json) print_evidence(game, size_t(args.lines));
    if (!args.run) return 0;
    // The program started here is the user's --engine or the UCI version's own command from
    // the coordinator's record; never the command in the worker's evidence, which anyone holding
    // a worker token could have written.
    ReplaySettings settings;
    settings.command = args.engine ? *args.engine : game.replay_command();
    settings.stall_timeout = std::chrono::seconds(args.stall_seconds);
    if (settings.command.empty())
        throw UsageError(
            "version '" + printable(game.version()) + "' is " +
            (game.engine().empty() ? std::string("not a UCI engine") : printable(game.engine())) +
            ": `repro --run` starts only a UCI version's own command, never a file "
            "a worker ran; give --engine PATH (a build of it you trust)");
    if (!args.json) {
        if (!args.engine && !game.command().empty() && game.command() != settings.command)
            std::cout << "\nnote: the worker reported running " << printable(game.command())
                      << "; the version's command is started instead\n";
        std::cout << "\nreplaying on this machine with " << printable(settings.command) << " ...\n";
    }
    const ReplayOutcome outcome = replay_fault(game, settings);
    const bool reproduced = outcome.fault == game.fault();
    if (args.json) {
        std::cout << "{\"reproduced\": " << (reproduced ? "true" : "false") << ", \"fault\": \""
                  << v1::GameEnding_Name(outcome.fault) << "\", \"go\": " << outcome.go_index
                  << ", \"gos\": " << outcome.go_count
                  << ", \"exact\": " << (outcome.exact ? "true" : "false") << "}\n";
        return reproduced ? 0 : 1;
    }
    std::cout << "the engine " << printable(outcome.what, 2000) << " (go " << outcome.go_index
              << " of " << outcome.go_count << ", "
              << (outcome.exact ? "the game's whole exchange replayed"
                                : "the last position and go only: the transcript is not whole")
              << ")\n";
    if (!outcome.stderr_tail.empty()) {
        size_t total = 0;
        std::cout << "stderr:\n" << tail_of(outcome.stderr_tail, 10, &total);
    }
    if (reproduced)
        std::cout << "reproduced: " << fault_name(game.fault()) << ", as on the worker\n";
    else
        std::cout << "not reproduced: the game was lost by " << fault_name(game.fault())
                  << (outcome.fault == v1::GAME_ENDING_UNSPECIFIED
                          ? ", the replay had no fault"
                          : ", the replay by " + fault_name(outcome.fault))
                  << "\n";
    return reproduced ? 0 : 1;
}

}  // namespace

Command faults_command() {
    return {"faults", "list a run's games lost by an engine's fault, with their evidence",
            "RUN [--max-games N]", declare_flags<FaultsFlags, faults>};
}

Command repro_command() {
    return {"repro",
            "show a faulty game's engine, options, position, go, transcript and stderr; --run "
            "replays it here",
            "RUN GAME [--run [--engine PATH]] [--lines N]", declare_flags<ReproFlags, repro>};
}

}  // namespace sparring::cli
