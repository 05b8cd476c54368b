// sparring-bench-game-cost: where a game's time goes at a fixed node count (issue 53, item 5).
//
// Plays the games `sparring match` plays (the shipped book in sequential order, both colours of
// each opening, the built-in engine against itself) on one thread, with a CPU clock around each
// part of a game: the engines' set-up, new_game (hash and histories cleared), each move's search,
// the runner's own work per move (rules, draw checks, adjudication), and the PGN (SAN). Then the
// same games through the UCI path (two sparring-engine processes), where the engines' CPU is
// read from the kernel once they have quit. The search-bound limit is the engine's bench speed
// (`sparring-engine bench`'s nodes, on a CPU clock in this process) over the nodes the games
// really searched; a game loop at the limit costs nothing but its search.
//
// Usage: sparring-bench-game-cost [--pairs N] [--nodes N] [--engine PATH] [--book FILE]
//                                 [--bench-depth D] [--no-uci] [--fresh N]
// Output: a table of CPU µs per game and per move, then `key=value` lines the scripts read.
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bench.h"
#include "engine/params.h"
#include "match/game.h"
#include "match/opening_book.h"
#include "match/pgn.h"
#include "match/player.h"
#include "match/runner.h"

namespace {

using namespace sparring;
using namespace sparring::match;

// Returns this thread's CPU time in seconds.
double thread_cpu() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Returns the wall clock in seconds.
double wall_clock() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Returns the CPU seconds (user + system) of the children that have ended and been waited for.
double children_cpu() {
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) * 1e-6 +
           double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) * 1e-6;
}

// CPU seconds of the runner thread by part, summed over the games, and what was searched.
struct Costs {
    double setup = 0;     // creating the two players (once per thread of a match)
    double new_game = 0;  // Player::new_game, both sides
    double play = 0;      // Player::play: the search (in-process) or the UCI exchange
    double game = 0;      // play_game as a whole
    double pgn = 0;       // write_pgn
    double wall = 0;      // wall time of the games and their PGN
    std::uint64_t nodes = 0;
    std::uint64_t moves = 0;  // engine moves
    std::uint64_t plies = 0;  // all moves, book included
    std::uint64_t games = 0;
    std::string pgn_text;  // every game's PGN, to compare the two paths
};

// Forwards to a player with a CPU clock around new_game and play.
class TimedPlayer : public Player {
  public:
    TimedPlayer(Player& inner, Costs& costs) : inner_(inner), costs_(costs) {}

    const PlayerSpec& spec() const override { return inner_.spec(); }
    bool new_game(std::string* error) override {
        const double start = thread_cpu();
        const bool ok = inner_.new_game(error);
        costs_.new_game += thread_cpu() - start;
        return ok;
    }
    MoveReply play(const GamePosition& position, const SearchLimits& limits,
                   int timeout_ms) override {
        const double start = thread_cpu();
        MoveReply reply = inner_.play(position, limits, timeout_ms);
        costs_.play += thread_cpu() - start;
        costs_.nodes += reply.nodes;
        ++costs_.moves;
        return reply;
    }
    bool reconfigure(const PlayerSpec& spec, std::string* error) override {
        return inner_.reconfigure(spec, error);
    }
    std::optional<FaultEvidence> fault_evidence() const override { return inner_.fault_evidence(); }
    std::vector<OutputWarning> take_output_warnings() override {
        return inner_.take_output_warnings();
    }

  private:
    Player& inner_;
    Costs& costs_;
};

// Plays every job's two games on this thread, as MatchRunner's worker thread does, timing each
// part; the first spec has white in a pair's first game.
Costs play_games(const PlayerSpec& first_spec, const PlayerSpec& second_spec,
                 const std::vector<PairJob>& jobs, const TimeControl& tc) {
    Costs costs;
    const double wall_start = wall_clock();
    double start = thread_cpu();
    std::unique_ptr<Player> first = make_player(first_spec);
    std::unique_ptr<Player> second = make_player(second_spec);
    costs.setup = thread_cpu() - start;
    TimedPlayer timed_first(*first, costs);
    TimedPlayer timed_second(*second, costs);
    const GameSettings settings{tc, Adjudication{}, 30000};
    PgnContext context;
    context.time_control = tc.pgn_tag();
    const std::atomic<bool> stop{false};
    for (const PairJob& job : jobs) {
        for (int game_index = 0; game_index < 2; ++game_index) {
            Player& white = game_index == 0 ? static_cast<Player&>(timed_first) : timed_second;
            Player& black = game_index == 0 ? static_cast<Player&>(timed_second) : timed_first;
            start = thread_cpu();
            std::optional<GameResult> game = play_game(white, black, job.opening, settings, stop);
            costs.game += thread_cpu() - start;
            if (!game) throw std::runtime_error("a game did not finish");
            if (game->termination == Termination::Crash ||
                game->termination == Termination::Stalled ||
                game->termination == Termination::IllegalMove)
                throw std::runtime_error("an engine failed: " + game->reason);
            context.round = std::to_string(2 * job.index + std::uint64_t(game_index) + 1);
            start = thread_cpu();
            std::string pgn = write_pgn(*game, context);
            costs.pgn += thread_cpu() - start;
            // The move times differ from run to run; the moves do not.
            for (PlayedMove& move : game->moves) move.time_ms = 0;
            costs.pgn_text += write_pgn(*game, context);
            costs.plies += game->moves.size();
            ++costs.games;
        }
    }
    costs.wall = wall_clock() - wall_start;
    return costs;
}

// Returns the thread CPU seconds that a new player costs over a reused one, per side and game:
// count times a new player (engine, hash table) starts a game and searches the start position,
// against one player doing the same count times. A runner that made new engines for every game
// would pay it twice a game; the kernel's zeroing of the table's pages on their first touch
// lands in the search, so the search is in both.
double fresh_player_cost(const PlayerSpec& spec, const TimeControl& tc, int count) {
    const std::string fen(START_FEN);
    const std::vector<Move> moves;
    const Board board;
    SearchLimits limits;
    limits.nodes = tc.nodes;
    const auto game_and_move = [&](Player& player) {
        std::string error;
        if (!player.new_game(&error)) throw std::runtime_error(error);
        player.play(GamePosition{fen, moves, board}, limits, 30000);
    };
    std::unique_ptr<Player> reused = make_player(spec);
    double start = thread_cpu();
    for (int i = 0; i < count; ++i) game_and_move(*reused);
    const double reused_cost = thread_cpu() - start;
    start = thread_cpu();
    for (int i = 0; i < count; ++i) game_and_move(*make_player(spec));
    return (thread_cpu() - start - reused_cost) / count;
}

// Returns the value after a flag, or exits with the usage.
std::string value_of(int& i, int argc, char** argv) {
    if (i + 1 >= argc) {
        std::cerr << "missing value after " << argv[i] << "\n";
        std::exit(2);
    }
    return argv[++i];
}

}  // namespace

int main(int argc, char** argv) {
    int pairs = 50;
    int nodes = 1000;
    int bench_depth = BENCH_DEFAULT_DEPTH;
    int fresh = 20;
    bool uci = true;
    std::string engine = SPARRING_BINARY_DIR "/engine/sparring-engine";
    std::string book_path = SPARRING_SOURCE_DIR "/match/books/default.epd";
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--pairs") {
            pairs = std::stoi(value_of(i, argc, argv));
        } else if (arg == "--nodes") {
            nodes = std::stoi(value_of(i, argc, argv));
        } else if (arg == "--engine") {
            engine = value_of(i, argc, argv);
        } else if (arg == "--book") {
            book_path = value_of(i, argc, argv);
        } else if (arg == "--bench-depth") {
            bench_depth = std::stoi(value_of(i, argc, argv));
        } else if (arg == "--fresh") {
            fresh = std::stoi(value_of(i, argc, argv));
        } else if (arg == "--no-uci") {
            uci = false;
        } else {
            std::cerr << "usage: sparring-bench-game-cost [--pairs N] [--nodes N] [--engine PATH]"
                         " [--book FILE] [--bench-depth D] [--no-uci] [--fresh N]\n";
            return 2;
        }
    }
    std::string error;
    auto book = load_book(book_path, BookFormat::Epd, 0, &error);
    if (!book) {
        std::cerr << error << "\n";
        return 1;
    }
    std::vector<std::size_t> order(book->size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::vector<PairJob> jobs =
        make_pair_jobs(*book, order, 0, static_cast<std::uint64_t>(pairs));
    const auto tc = parse_time_control("nodes=" + std::to_string(nodes), &error);
    if (!tc) {
        std::cerr << error << "\n";
        return 1;
    }

    // The engine's own speed: the bench's nodes over its CPU time, on this thread.
    double start = thread_cpu();
    const BenchResult bench = run_bench(bench_depth, ParamSet{});
    const double bench_cpu = thread_cpu() - start;
    const double nps = double(bench.nodes) / bench_cpu;

    const PlayerSpec builtin_a{"builtin-a", BuiltinSpec{}};
    const PlayerSpec builtin_b{"builtin-b", BuiltinSpec{}};
    const Costs in = play_games(builtin_a, builtin_b, jobs, *tc);
    const double fresh_cost = fresh_player_cost(builtin_a, *tc, fresh);

    const double games = double(in.games);
    const double us = 1e6 / games;
    const double nodes_per_game = double(in.nodes) / games;
    const double search_bound = nodes_per_game / nps;  // CPU seconds a game needs at bench speed
    const double runner = in.game - in.play - in.new_game;
    const double total = in.setup + in.game + in.pgn;
    std::printf(
        "%llu games at nodes=%d, one thread; %.1f plies, %.0f nodes per game "
        "(%.0f per engine move)\n",
        static_cast<unsigned long long>(in.games), nodes, double(in.plies) / games, nodes_per_game,
        double(in.nodes) / double(in.moves));
    std::printf("bench: %llu nodes in %.2f s of CPU: %.0f nodes/s\n\n",
                static_cast<unsigned long long>(bench.nodes), bench_cpu, nps);
    std::printf("in-process, CPU per game          µs/game   µs/move   share\n");
    const auto row = [&](const char* name, double seconds) {
        std::printf("  %-32s %8.0f  %8.1f  %5.1f%%\n", name, seconds * us,
                    seconds * 1e6 / double(in.moves), 100 * seconds / total);
    };
    row("search at bench speed", search_bound * games);
    row("search beyond bench speed", in.play - search_bound * games);
    row("new_game (hash, histories)", in.new_game);
    row("runner (rules, adjudication)", runner);
    row("PGN (SAN, comments)", in.pgn);
    row("engine set-up (once a thread)", in.setup);
    row("total", total);
    std::printf("  a fresh engine per side and game would add %.0f µs per game\n",
                2 * fresh_cost * 1e6);
    const double fraction = search_bound * games / total;
    std::printf("search-bound fraction (bench speed / games' CPU): %.3f\n", fraction);
    std::printf(
        "key nodes_per_game=%.0f\nkey bench_nps=%.0f\nkey in_cpu_per_game_us=%.0f\n"
        "key in_search_bound_us=%.0f\nkey in_play_us=%.0f\nkey in_new_game_us=%.1f\n"
        "key in_runner_us=%.1f\nkey in_pgn_us=%.1f\nkey in_setup_us=%.1f\n"
        "key fresh_engines_us=%.0f\nkey fraction=%.3f\n",
        nodes_per_game, nps, total * us, search_bound * 1e6, in.play * us, in.new_game * us,
        runner * us, in.pgn * us, in.setup * us, 2 * fresh_cost * 1e6, fraction);
    if (!uci) return 0;

    UciSpec uci_spec;
    uci_spec.command = engine;
    const PlayerSpec uci_a{"builtin-a", uci_spec};
    const PlayerSpec uci_b{"builtin-b", uci_spec};
    const double children_before = children_cpu();
    const Costs out = play_games(uci_a, uci_b, jobs, *tc);  // the engines quit at its end
    const double engines = children_cpu() - children_before;
    const bool same = out.pgn_text == in.pgn_text;
    const double out_runner = out.game - out.play - out.new_game;
    const double out_total = out.setup + out.game + out.pgn + engines;
    std::printf("\nUCI path (two sparring-engine processes), CPU per game  µs/game   share\n");
    const auto uci_row = [&](const char* name, double seconds) {
        std::printf("  %-46s %8.0f  %5.1f%%\n", name, seconds * us, 100 * seconds / out_total);
    };
    uci_row("engine processes: search at bench speed", search_bound * games);
    uci_row("engine processes: the rest (UCI text, start)", engines - search_bound * games);
    uci_row("runner: the UCI exchange of play()", out.play);
    uci_row("runner: new_game (ucinewgame, isready)", out.new_game);
    uci_row("runner: rules, adjudication", out_runner);
    uci_row("runner: PGN", out.pgn);
    uci_row("runner: engine start (once a thread)", out.setup);
    uci_row("total", out_total);
    std::printf("the same games on both paths: %s\n", same ? "yes" : "NO");
    std::printf("CPU ratio UCI / in-process: %.2f; wall, one game at a time: %.2f\n",
                out_total / total, out.wall / in.wall);
    std::printf(
        "key uci_cpu_per_game_us=%.0f\nkey uci_engines_us=%.0f\nkey cpu_ratio=%.2f\n"
        "key same_games=%d\n",
        out_total * us, engines * us, out_total / total, same ? 1 : 0);
    return same ? 0 : 1;
}
