// `sparring book generate`: rebuilds an opening book (the shipped one among them) from a seed.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "common/progress.h"
#include "match/book_generator.h"
#include "match/opening_book.h"

namespace sparring::cli {

namespace {

// The flags of `sparring book`, and its arguments.
struct BookFlags {
    std::string out;
    CLI::Option* out_option = nullptr;
    int64_t positions = 0, seed = 0, min_plies = 0, max_plies = 0, max_score = 0, nodes = 0;
    std::vector<std::string> exclude;
    std::vector<std::string> arguments;

    // Declares the flags on app.
    explicit BookFlags(CLI::App& app) {
        out_option = add_flag(app, "out", out, "FILE", "EPD file to write (required)");
        add_flag(app, "positions", positions, "N", "distinct positions to find", "1200", 1,
                 1'000'000);
        add_flag(app, "seed", seed, "N", "seed of the random moves", "1", 0,
                 std::numeric_limits<std::int64_t>::max());
        add_flag(app, "min-plies", min_plies, "N", "random moves from the start position, at least",
                 "6", 1, 200);
        add_flag(app, "max-plies", max_plies, "N", "random moves, at most", "10", 1, 200);
        add_flag(app, "max-score", max_score, "CP", "keep positions the engine scores within +-CP",
                 "80", 0, 10000);
        add_flag(app, "nodes", nodes, "N", "nodes of the engine's search of each position", "20000",
                 1, 100'000'000);
        add_flag(app, "exclude", exclude, "FILE",
                 "write no position of this book (EPD; PGN for a .pgn file: the position after "
                 "each game's moves); repeatable");
        add_arguments(app, arguments);
    }
};

// Runs `sparring book generate`.
int run_book(const BookFlags& args) {
    if (args.arguments.size() != 1 || args.arguments[0] != "generate")
        throw UsageError("the only book command is 'sparring book generate --out FILE'");
    match::BookGeneratorOptions options;
    options.positions = static_cast<int>(args.positions);
    options.seed = static_cast<std::uint64_t>(args.seed);
    options.min_plies = static_cast<int>(args.min_plies);
    options.max_plies = static_cast<int>(args.max_plies);
    if (options.max_plies < options.min_plies)
        throw UsageError("--max-plies must not be below --min-plies");
    options.max_score_cp = static_cast<int>(args.max_score);
    options.nodes = static_cast<std::uint64_t>(args.nodes);
    for (const std::string& path : args.exclude) {
        const bool pgn = path.size() > 4 && path.ends_with(".pgn");
        std::string error;
        const auto other = match::load_book(
            path, pgn ? match::BookFormat::Pgn : match::BookFormat::Epd, 0, &error);
        if (!other) throw std::runtime_error("--exclude: " + error);
        options.exclude.merge(match::book_positions(*other));
    }
    require(args.out_option);
    const std::string& path = args.out;
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write '" + path + "'");

    std::vector<match::BookPosition> book;
    {
        // Only a terminal shows the count: the search takes a minute, not an hour.
        ConsoleProgress progress(ConsoleProgress::kNever);
        book = match::generate_book(options, [&](int found) {
            if (found % 100 == 0) progress.show(std::to_string(found) + " positions");
        });
    }
    match::write_epd(out, book);
    out.close();
    if (!out) throw std::runtime_error("error writing '" + path + "'");
    std::cerr << book.size() << " positions written to " << path << "\n";
    if (static_cast<int>(book.size()) < options.positions) {
        std::cerr << "sparring book: only " << book.size() << " of " << options.positions
                  << " positions passed the score test\n";
        return 1;
    }
    return 0;
}

}  // namespace

// Describes `sparring book` for the command table.
Command book_command() {
    return {"book",
            "generate an opening book: random opening moves kept when the engine finds "
            "them balanced",
            "generate --out FILE [--positions N] [--seed N] [--min-plies N] [--max-plies N] "
            "[--max-score CP] [--nodes N] [--exclude FILE ...]",
            declare_flags<BookFlags, run_book>};
}

}  // namespace sparring::cli
