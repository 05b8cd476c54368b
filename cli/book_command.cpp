// `sparring book generate`: rebuilds an opening book (the shipped one among them) from a seed.
#include <fstream>
#include <iostream>
#include <limits>
#include <string>

#include "cli/commands.h"
#include "common/progress.h"
#include "match/book_generator.h"

namespace sparring::cli {

namespace {

constexpr Flag BookFlags[] = {
    {"out", "FILE", "EPD file to write (required)"},
    {"positions", "N", "distinct positions to find", "1200"},
    {"seed", "N", "seed of the random moves", "1"},
    {"min-plies", "N", "random moves from the start position, at least", "6"},
    {"max-plies", "N", "random moves, at most", "10"},
    {"max-score", "CP", "keep positions the engine scores within +-CP", "80"},
    {"nodes", "N", "nodes of the engine's search of each position", "20000"},
};

// Runs `sparring book generate`.
int run_book(const Flags& args) {
    if (args.positional().size() != 1 || args.positional()[0] != "generate")
        throw UsageError("the only book command is 'sparring book generate --out FILE'");
    match::BookGeneratorOptions options;
    options.positions = static_cast<int>(args.get_int_in("positions", 1, 1'000'000));
    options.seed = static_cast<std::uint64_t>(
        args.get_int_in("seed", 0, std::numeric_limits<std::int64_t>::max()));
    options.min_plies = static_cast<int>(args.get_int_in("min-plies", 1, 200));
    options.max_plies = static_cast<int>(args.get_int_in("max-plies", 1, 200));
    if (options.max_plies < options.min_plies)
        throw UsageError("--max-plies must not be below --min-plies");
    options.max_score_cp = static_cast<int>(args.get_int_in("max-score", 0, 10000));
    options.nodes = static_cast<std::uint64_t>(args.get_int_in("nodes", 1, 100'000'000));
    const std::string path = args.get_string("out");
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
            "[--max-score CP] [--nodes N]",
            BookFlags, run_book};
}

}  // namespace sparring::cli
