// The sparring-engine command line: the UCI loop, or the perft and bench subcommands (CLI11).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/flags.h"
#include "engine/bench.h"
#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/params.h"
#include "engine/uci.h"

namespace {

using sparring::Board;
using sparring::UsageError;

constexpr int MAX_PERFT_DEPTH = 20;

// Runs `perft DEPTH [FEN]`: one line per root move, then the total, time and speed.
int run_perft(int depth, const std::vector<std::string>& fen_words) {
    std::string fen;
    for (const std::string& word : fen_words) {
        if (!fen.empty()) fen += ' ';
        fen += word;
    }
    Board board;
    std::string error;
    if (!fen.empty() && !board.set_fen(fen, &error)) throw UsageError(error);

    auto start = std::chrono::steady_clock::now();
    auto counts = sparring::perft_divide(board, depth);
    auto elapsed = std::chrono::steady_clock::now() - start;

    std::uint64_t nodes = 0;
    for (const auto& [move, count] : counts) {
        std::cout << sparring::to_uci(move) << ": " << count << "\n";
        nodes += count;
    }
    double seconds = std::chrono::duration<double>(elapsed).count();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
    auto nps = seconds > 0 ? static_cast<std::uint64_t>(static_cast<double>(nodes) / seconds) : 0;
    std::cout << "\nNodes searched: " << nodes << "\n"
              << "Time: " << ms << " ms, " << nps << " nodes/second\n";
    return 0;
}

// Returns the parameter set of --params: a JSON object, or a file holding one.
sparring::ParamSet read_params(std::string text) {
    if (!text.starts_with("{")) {
        std::ifstream file(text);
        if (!file) throw UsageError("cannot read parameter file '" + text + "'");
        std::ostringstream content;
        content << file.rdbuf();
        text = content.str();
    }
    std::string error;
    auto parsed = sparring::ParamSet::from_json(text, sparring::ParamSet(), &error);
    if (!parsed) throw UsageError("bad parameters: " + error);
    return *parsed;
}

// Runs `bench [DEPTH] [--params JSON|FILE] [--threads N]`: the signature node count and the
// speed.
int run_bench(int depth, const std::string& params_text, int threads) {
    const sparring::ParamSet params =
        params_text.empty() ? sparring::ParamSet() : read_params(params_text);
    sparring::BenchResult result = sparring::run_bench(depth, params, &std::cout, threads);
    std::cout << "\nNodes searched: " << result.nodes << "\n"
              << "Nodes/second: "
              << result.nodes * 1000 / std::max<std::uint64_t>(1, result.time_ms) << "\n"
              << "Time: " << result.time_ms << " ms\n";
    return 0;
}

}  // namespace

// Speaks UCI without arguments; otherwise runs the subcommand the arguments name.
int main(int argc, char** argv) {
    if (argc == 1) return sparring::uci_loop(std::cin, std::cout);
    CLI::App app(
        "A UCI chess engine: without a command it speaks UCI on standard input and "
        "output.",
        "sparring-engine");
    sparring::set_synopsis(app, "[perft|bench] [ARGUMENTS]");
    app.require_subcommand(1);

    CLI::App* perft =
        app.add_subcommand("perft", "count the leaf nodes DEPTH plies deep, per root move");
    sparring::set_synopsis(*perft, "DEPTH [FEN]");
    int perft_depth = 0;
    std::vector<std::string> fen;
    perft->add_option("DEPTH", perft_depth, "plies to count")
        ->required()
        ->check(CLI::Range(1, MAX_PERFT_DEPTH));
    perft->add_option("FEN", fen, "the position (default: the start position)");

    CLI::App* bench =
        app.add_subcommand("bench",
                           "search the bench positions and print the signature (Nodes "
                           "searched) and speed");
    sparring::set_synopsis(*bench, "[DEPTH] [--params JSON|FILE] [--threads N]");
    int bench_depth = sparring::BENCH_DEFAULT_DEPTH;
    std::string params;
    bench->add_option("DEPTH", bench_depth, "depth of each search")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    bench
        ->add_option("--params", params, "a JSON object of parameter values, or a file holding one")
        ->type_name("JSON|FILE");
    int bench_threads = 1;
    bench
        ->add_option("--threads", bench_threads,
                     "share the positions among N threads: the same Nodes searched, sooner "
                     "(Nodes/second is then their sum)")
        ->type_name("N")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();

    return sparring::run_command_line(app, argc, argv, [&] {
        if (perft->parsed()) return run_perft(perft_depth, fen);
        return run_bench(bench_depth, params, bench_threads);
    });
}
