// The sparring-engine command line: a dispatch over subcommands.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bench.h"
#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "engine/params.h"
#include "engine/uci.h"

namespace {

using sparring::Board;

using Arguments = std::span<const std::string_view>;

constexpr int MAX_PERFT_DEPTH = 20;

// Prints the usage text to out.
void print_usage(std::ostream& out) {
    out << "usage: sparring-engine [COMMAND [ARGUMENTS]]\n"
           "without a command it speaks UCI on standard input and output\n"
           "commands:\n"
           "  perft DEPTH [FEN]   count the leaf nodes DEPTH plies deep (1-"
        << MAX_PERFT_DEPTH
        << "), per root move;\n"
           "                      FEN defaults to the start position\n"
           "  bench [DEPTH] [--params JSON|FILE]\n"
           "                      search the bench positions to DEPTH (default "
        << sparring::BENCH_DEFAULT_DEPTH
        << ") and print the\n"
           "                      signature (Nodes searched) and speed; --params takes a\n"
           "                      JSON object of parameter values, or a file holding one\n"
           "  --help              show this text\n";
}

// Runs `perft DEPTH [FEN]`: one line per root move, then the total, time and speed.
int run_perft(Arguments args) {
    if (args.empty()) {
        std::cerr << "sparring-engine: perft needs a depth\n";
        return 2;
    }
    int depth = 0;
    std::string_view text = args[0];
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), depth);
    if (ec != std::errc() || end != text.data() + text.size() || depth < 1 ||
        depth > MAX_PERFT_DEPTH) {
        std::cerr << "sparring-engine: perft depth '" << text << "' is not an integer from 1 to "
                  << MAX_PERFT_DEPTH << "\n";
        return 2;
    }
    std::string fen;
    for (std::string_view word : args.subspan(1)) {
        if (!fen.empty()) fen += ' ';
        fen += word;
    }

    Board board;
    std::string error;
    if (!fen.empty() && !board.set_fen(fen, &error)) {
        std::cerr << "sparring-engine: " << error << "\n";
        return 2;
    }

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

// Runs `bench [DEPTH] [--params JSON|FILE]`: the signature node count and the speed.
int run_bench(Arguments args) {
    int depth = sparring::BENCH_DEFAULT_DEPTH;
    sparring::ParamSet params;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "--params") {
            if (i + 1 >= args.size()) {
                std::cerr << "sparring-engine: --params needs a JSON object or a file\n";
                return 2;
            }
            std::string text(args[++i]);
            if (!text.starts_with("{")) {
                std::ifstream file(text);
                if (!file) {
                    std::cerr << "sparring-engine: cannot read parameter file '" << text << "'\n";
                    return 2;
                }
                std::ostringstream content;
                content << file.rdbuf();
                text = content.str();
            }
            std::string error;
            auto parsed = sparring::ParamSet::from_json(text, sparring::ParamSet(), &error);
            if (!parsed) {
                std::cerr << "sparring-engine: bad parameters: " << error << "\n";
                return 2;
            }
            params = *parsed;
            continue;
        }
        auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), depth);
        if (ec != std::errc() || end != arg.data() + arg.size() || depth < 1 || depth > 64) {
            std::cerr << "sparring-engine: bench depth '" << arg
                      << "' is not an integer from 1 to 64\n";
            return 2;
        }
    }
    sparring::BenchResult result = sparring::run_bench(depth, params, &std::cout);
    std::cout << "\nNodes searched: " << result.nodes << "\n"
              << "Nodes/second: "
              << result.nodes * 1000 / std::max<std::uint64_t>(1, result.time_ms) << "\n"
              << "Time: " << result.time_ms << " ms\n";
    return 0;
}

struct Command {
    std::string_view name;
    int (*run)(Arguments);
};

constexpr Command COMMANDS[] = {
    {"perft", run_perft},
    {"bench", run_bench},
};

}  // namespace

// Dispatches to the subcommand named by the first argument.
int main(int argc, char** argv) {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.empty()) return sparring::uci_loop(std::cin, std::cout);
    if (args[0] == "--help" || args[0] == "-h") {
        print_usage(std::cout);
        return 0;
    }
    for (const Command& command : COMMANDS)
        if (args[0] == command.name) return command.run(Arguments(args).subspan(1));
    std::cerr << "sparring-engine: unknown command '" << args[0] << "'\n";
    print_usage(std::cerr);
    return 2;
}
