// `sparring export RUN`: a run's games as PGN; `export positions`: a generation run's
// labelled positions.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/training_remote.h"

namespace sparring::cli {

namespace {

// Runs `export RUN`: every recorded game as PGN, page by page; `export positions` writes a
// generation run's labelled positions instead.
int export_games(const ExportFlags& args) {
    if (!args.arguments.empty() && args.arguments[0] == "positions") return export_positions(args);
    for (const CLI::Option* option : {args.run_option, args.format_option})
        if (given(option)) throw UsageError(option->get_name() + " goes with export positions");
    v1::ExportGamesRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    std::ofstream file;
    if (args.out) {
        file.open(*args.out, std::ios::binary);
        if (!file) throw std::runtime_error("cannot write " + *args.out);
    }
    std::ostream& out = args.out ? file : std::cout;
    uint64_t games = 0;
    for (;;) {
        v1::ExportGamesResponse page;
        client.call(&v1::UserService::Stub::ExportGames, request, &page);
        out << page.pgn();
        games += page.games();
        if (page.done() || page.games() == 0) break;
        request.set_start_game(page.next_start_game());
    }
    if (!out) throw std::runtime_error("writing the PGN failed");
    if (args.out) std::cerr << games << " games written to " << *args.out << "\n";
    return 0;
}

}  // namespace

Command export_command() {
    return {"export", "export a run's games as PGN, or a generation run's labelled positions",
            "RUN [--out FILE] | positions --run RUN --out FILE [--format F]",
            declare_flags<ExportFlags, export_games>};
}

}  // namespace sparring::cli
