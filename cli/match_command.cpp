// `sparring match`: paired games between two engines (or a gauntlet) on this machine, with a
// live progress line, PGN output, SPRT stopping and a final report.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/book_path.h"
#include "cli/commands.h"
#include "common/progress.h"
#include "common/signals.h"
#include "match/engine_spec.h"
#include "match/opening_book.h"
#include "match/report.h"
#include "match/runner.h"
#include "stats/stats.h"

namespace sparring::cli {

namespace {

using namespace sparring::match;

// The flags of `sparring match`, and its engines.
struct MatchFlags {
    std::string tc, book_order, event;
    int64_t concurrency = 0, pairs = 0, book_plies = 0, seed = 0, maxplies = 0, stall_timeout = 0;
    std::optional<int64_t> games;
    std::optional<std::string> book, book_format, draw, resign, pgn_out, sprt;
    CLI::Option* pairs_option = nullptr;
    CLI::Option* book_plies_option = nullptr;
    bool pgn_plain = false, gauntlet = false;
    std::vector<std::string> engines;

    // Declares the flags on app.
    explicit MatchFlags(CLI::App& app);
};

MatchFlags::MatchFlags(CLI::App& app) {
    add_flag(app, "tc", tc, "TC", "nodes=N, depth=N, movetime=MS, or BASE+INC in seconds",
             "nodes=1000");
    add_flag(app, "concurrency", concurrency, "N", "games played at once, one thread each", "1", 1,
             512);
    pairs_option =
        add_flag(app, "pairs", pairs, "N",
                 "game pairs per opponent, each opening with both colours", "50", 1, 1'000'000'000);
    in_range(add_flag(app, "games", games, "N",
                      "games per opponent, an even number (instead of --pairs)"),
             2, 2'000'000'000);
    from_environment(
        add_flag(app, "book", book, "FILE",
                 "opening book (default: the shipped share/sparring/books/default.epd)"));
    add_flag(app, "book-format", book_format, "F",
             "epd or pgn (default: pgn for a .pgn file, else epd)");
    book_plies_option =
        add_flag(app, "book-plies", book_plies, "N",
                 "PGN book: plies of each game to play out (0: all)", "0", 0, 10000);
    add_flag(app, "book-order", book_order, "O", "random or sequential", "random");
    add_flag(app, "seed", seed, "N", "seed of the random book order", "1", 0,
             std::numeric_limits<std::int64_t>::max());
    add_flag(app, "draw", draw, "RULE", "draw adjudication: movenumber=N,movecount=N,score=CP");
    add_flag(app, "resign", resign, "RULE",
             "resign adjudication: movecount=N,score=CP[,twosided=true]");
    add_flag(app, "maxplies", maxplies, "N",
             "a game reaching N plies (book moves included) is drawn (0: never)", "0", 0, 100000);
    add_flag(app, "stall-timeout", stall_timeout, "S",
             "nodes/depth: seconds without a move before a loss", "30", 1, 86400);
    add_flag(app, "pgn-out", pgn_out, "FILE", "append every game to FILE as PGN");
    add_switch(app, "pgn-plain", pgn_plain, "no eval/depth/time comments in the PGN");
    add_flag(app, "event", event, "NAME", "PGN Event tag", "Sparring match");
    add_flag(app, "sprt", sprt, "SPEC",
             "stop once decided: elo0=E,elo1=E[,alpha=A,beta=B,model=normalized|logistic]");
    add_switch(app, "gauntlet", gauntlet,
               "play the first engine against each of the others in turn");
    add_arguments(app, engines);
}

constexpr std::string_view MatchUsage =
    "[FLAGS] ENGINE ENGINE [ENGINE ...]\n"
    "\n"
    "An ENGINE is one argument: a shorthand, or comma-separated KEY=VALUE pairs.\n"
    "  builtin                    the built-in engine with default parameters, in-process\n"
    "  builtin:PRESET|FILE        the built-in engine with a preset (default, seed) or a\n"
    "                             JSON file of parameter values, in-process\n"
    "  COMMAND                    an external UCI engine (a path, or a name in PATH)\n"
    "  name=NAME                  name in reports and PGN (default: builtin-PRESET, the JSON\n"
    "                             file's stem, or the command's file name)\n"
    "  builtin=PRESET|FILE        the built-in engine, as above\n"
    "  param.NAME=VALUE           one evaluation parameter of the built-in engine\n"
    "  hash=MB                    hash table of the built-in engine (default 16)\n"
    "  cmd=COMMAND                an external UCI engine\n"
    "  arg=ARG                    a command-line argument of COMMAND (repeatable)\n"
    "  dir=DIR                    working directory of COMMAND\n"
    "  option.NAME=VALUE          a UCI option, sent with setoption (repeatable, in order)\n"
    "  margin=MS                  how long an engine may run past its clock or movetime\n"
    "                             before it loses on time (default 0)\n"
    "Values cannot contain commas. Example:\n"
    "  sparring match --tc 5+0.05 --concurrency 2 builtin \\\n"
    "    name=sf1500,cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500\n"
    "\n"
    "Each opening is played twice, colours reversed; results are from the first engine's\n"
    "side. An engine that crashes, stalls, plays an illegal move or oversteps its time loses\n"
    "that game; one that crashed or hung is restarted for the next. Ctrl-C stops the match\n"
    "and reports the finished pairs.";

// Parses the value of --sprt.
stats::SprtParams parse_sprt(const std::string& text) {
    stats::SprtParams params;
    bool has_elo0 = false;
    bool has_elo1 = false;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        pos = comma + 1;
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
        auto number = [&] {
            std::size_t used = 0;
            double x = 0;
            try {
                x = std::stod(value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (value.empty() || used != value.size())
                throw UsageError("--sprt: " + key + " needs a number, got '" + value + "'");
            return x;
        };
        if (key == "elo0") {
            params.elo0 = number();
            has_elo0 = true;
        } else if (key == "elo1") {
            params.elo1 = number();
            has_elo1 = true;
        } else if (key == "alpha") {
            params.alpha = number();
        } else if (key == "beta") {
            params.beta = number();
        } else if (key == "model") {
            if (!stats::parse_model(value, &params.model))
                throw UsageError("--sprt: model must be normalized or logistic, got '" + value +
                                 "'");
        } else {
            throw UsageError("--sprt: unknown key '" + item + "'");
        }
    }
    if (!has_elo0 || !has_elo1) throw UsageError("--sprt needs elo0=E and elo1=E");
    if (std::string error = stats::validate(params); !error.empty())
        throw UsageError("--sprt: " + error);
    return params;
}

// Reads the engines, giving repeated names a suffix so reports and PGN tell them apart.
std::vector<PlayerSpec> read_engines(const MatchFlags& args) {
    const auto& texts = args.engines;
    const bool gauntlet = args.gauntlet;
    if (texts.size() < 2)
        throw UsageError(gauntlet ? "a gauntlet needs an engine and at least one opponent"
                                  : "give two engines (see sparring match --help)");
    if (texts.size() > 2 && !gauntlet) throw UsageError("more than two engines need --gauntlet");
    std::vector<PlayerSpec> engines;
    std::set<std::string> names;
    for (const std::string& text : texts) {
        std::string error;
        std::optional<PlayerSpec> spec = parse_player_spec(text, &error);
        if (!spec) throw UsageError(error);
        const std::string base = spec->name;
        for (int n = 2; names.count(spec->name); ++n) spec->name = base + "-" + std::to_string(n);
        names.insert(spec->name);
        engines.push_back(std::move(*spec));
    }
    return engines;
}

// Everything a match needs besides its two players.
struct MatchSetup {
    MatchConfig config;
    std::vector<Opening> book;
    std::vector<std::size_t> order;
    std::uint64_t pairs = 0;
    std::optional<stats::SprtParams> sprt;
    std::string pgn_path;
};

// Reads every flag except the engines.
MatchSetup read_setup(const MatchFlags& args) {
    MatchSetup setup;
    MatchConfig& config = setup.config;
    std::string error;
    auto tc = parse_time_control(args.tc, &error);
    if (!tc) throw UsageError(error);
    config.time_control = *tc;
    config.concurrency = static_cast<int>(args.concurrency);
    config.stall_timeout_ms = static_cast<int>(args.stall_timeout) * 1000;
    if (args.games && given(args.pairs_option))
        throw UsageError("give --games or --pairs, not both");
    if (args.games) {
        const std::int64_t games = *args.games;
        if (games % 2) throw UsageError("--games must be even: every opening is played twice");
        setup.pairs = static_cast<std::uint64_t>(games / 2);
    } else {
        setup.pairs = static_cast<std::uint64_t>(args.pairs);
    }
    if (args.draw) {
        config.adjudication.draw = parse_draw_rule(*args.draw, &error);
        if (!config.adjudication.draw) throw UsageError(error);
    }
    if (args.resign) {
        config.adjudication.resign = parse_resign_rule(*args.resign, &error);
        if (!config.adjudication.resign) throw UsageError(error);
    }
    config.adjudication.max_plies = static_cast<int>(args.maxplies);
    if (args.sprt) setup.sprt = parse_sprt(*args.sprt);

    const std::string book_path = args.book ? *args.book : default_book_path();
    const bool pgn_name = book_path.size() > 4 && book_path.ends_with(".pgn");
    const std::string format_text = args.book_format.value_or(pgn_name ? "pgn" : "epd");
    auto format = parse_book_format(format_text);
    if (!format) throw UsageError("--book-format must be epd or pgn, got '" + format_text + "'");
    const std::string& order_text = args.book_order;
    auto order = parse_book_order(order_text);
    if (!order)
        throw UsageError("--book-order must be random or sequential, got '" + order_text + "'");
    if (*format == BookFormat::Epd && given(args.book_plies_option))
        throw UsageError("--book-plies applies to PGN books only");
    const int plies = static_cast<int>(args.book_plies);
    const auto seed = static_cast<std::uint64_t>(args.seed);
    auto book = load_book(book_path, *format, plies, &error);
    if (!book) throw std::runtime_error(error);
    setup.book = std::move(*book);
    setup.order = opening_order(setup.book.size(), *order, seed);
    const std::string games = (setup.sprt ? "up to " : "") + std::to_string(2 * setup.pairs) +
                              " games" + (args.engines.size() > 2 ? " per opponent" : "");
    if (const std::string warning =
            replay_warning(games, setup.pairs, setup.book.size(), config.time_control);
        !warning.empty())
        std::cerr << "warning: " << warning << "\n";

    setup.pgn_path = args.pgn_out.value_or("");
    config.pgn.record = !setup.pgn_path.empty();
    config.pgn.comments = !args.pgn_plain;
    config.pgn.event = args.event;
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    config.pgn.site = host;
    return setup;
}

// Plays one match between two engines and returns its tally.
MatchTally play_match(const MatchSetup& setup, const PlayerSpec& first, const PlayerSpec& second,
                      std::ofstream* pgn, std::atomic<bool>& stop) {
    MatchConfig config = setup.config;
    config.first = first;
    config.second = second;
    MatchRunner runner(config);
    std::string error;
    if (!runner.check_players(&error)) throw std::runtime_error(error);

    const std::vector<PairJob> jobs = make_pair_jobs(setup.book, setup.order, 0, setup.pairs);
    const auto games_total = static_cast<std::int64_t>(2 * setup.pairs);
    std::cerr << first.name << " vs " << second.name << ": " << games_total << " games, "
              << config.time_control.to_string() << ", concurrency " << config.concurrency << "\n";
    MatchTally tally;
    std::int64_t games_played = 0;
    // Off a terminal a line is written every twentieth of the pairs.
    ConsoleProgress progress(ConsoleProgress::kNever);
    const auto every = std::max<std::int64_t>(1, static_cast<std::int64_t>(setup.pairs) / 20);
    MatchRunner::Callbacks callbacks;
    callbacks.on_game_done = [&](const GameResult&) {
        ++games_played;
        progress.show(progress_line(tally, games_played, games_total, setup.sprt));
    };
    callbacks.on_pair_done = [&](const PairResult& pair) {
        // The PGN gets a pair's games together, when the report counts them: a match cut short
        // (Ctrl-C, SPRT decision) leaves no game in the file that the report does not count.
        if (pgn) *pgn << pair.games[0].pgn << pair.games[1].pgn << std::flush;
        tally.add(pair);
        progress.show(progress_line(tally, games_played, games_total, setup.sprt),
                      (tally.games() / 2) % every == 0);
        if (setup.sprt &&
            sprt_state(tally, *setup.sprt).state != stats::SprtResult::State::Continue)
            stop = true;
    };
    runner.play(jobs, callbacks, stop);
    progress.finish();
    return tally;
}

// Runs `sparring match`.
int run_match(const MatchFlags& args) {
    const std::vector<PlayerSpec> engines = read_engines(args);
    const MatchSetup setup = read_setup(args);
    std::optional<std::ofstream> pgn;
    if (!setup.pgn_path.empty()) {
        pgn.emplace(setup.pgn_path, std::ios::app);
        if (!*pgn) throw std::runtime_error("cannot open PGN file '" + setup.pgn_path + "'");
    }

    std::atomic<bool> stop{false};
    std::atomic<bool> interrupted{false};
    // The engines' processes and the game threads start after this, with the signals blocked.
    StopSignals signals;
    signals.watch([&](int) {
        interrupted = true;
        stop = true;
    });
    std::vector<std::pair<std::string, MatchTally>> results;
    for (std::size_t i = 1; i < engines.size(); ++i) {
        stop = false;
        if (interrupted) break;
        MatchTally tally = play_match(setup, engines[0], engines[i], pgn ? &*pgn : nullptr, stop);
        std::cout << final_report(engines[0].name, engines[i].name, tally, setup.sprt)
                  << std::flush;
        results.emplace_back(engines[i].name, tally);
    }
    if (results.size() > 1) {
        std::cout << "\ngauntlet of " << engines[0].name << ":\n";
        for (const auto& [name, tally] : results) {
            const stats::EloEstimate e = stats::estimate(tally.pentanomial);
            char line[160];
            std::snprintf(line, sizeof line,
                          "  vs %-24s %6lld games  score %5.1f%%  Elo %+7.1f +- %5.1f\n",
                          name.c_str(), static_cast<long long>(tally.games()), 100 * e.score, e.elo,
                          (e.elo_high - e.elo_low) / 2);
            std::cout << line;
        }
    }
    if (interrupted) {
        std::cerr << "sparring match: interrupted\n";
        return 130;
    }
    return 0;
}

}  // namespace

// Describes `sparring match` for the command table.
Command match_command() {
    return {"match",
            "play paired games between engines (built-in in-process, or UCI) and report Elo",
            MatchUsage, declare_flags<MatchFlags, run_match>};
}

}  // namespace sparring::cli
