// `sparring export RUN`: a run's games as PGN; `sparring export [RUN...] --version V --tc TC
// ...`: the games of a selection across runs as one .pgn.gz, streamed; `export positions`: a
// generation run's labelled positions.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/training_remote.h"
#include "common/progress.h"

namespace sparring::cli {

namespace {

// Whether a path names a gzip file (".gz").
bool gzip_path(const std::string& path) {
    return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

// Runs a bulk export: the games of the runs given (none: every run) and the selection's flags
// as one .pgn.gz, written as it arrives to --out FILE or, with --out - (or no --out off a
// terminal), to standard output.
int export_bulk(const ExportFlags& args) {
    v1::ExportGamesStreamRequest request;
    for (const std::string& run : args.arguments) request.add_run_ids(parse_run_id(run));
    args.selection.read(&request);
    const bool to_stdout = !args.out || *args.out == "-";
    if (!args.out && isatty(STDOUT_FILENO))
        throw UsageError(
            "a bulk export is gzip: give --out FILE.pgn.gz, or --out - to write it to the "
            "terminal anyway");
    RemoteClient client(args.remote);
    std::ofstream file;
    if (!to_stdout) {
        file.open(*args.out, std::ios::binary | std::ios::trunc);
        if (!file) throw std::runtime_error("cannot write " + *args.out);
    }
    std::ostream& out = to_stdout ? std::cout : file;
    // Games written so far, in place on a terminal only.
    ConsoleProgress progress(ConsoleProgress::kNever);
    uint64_t games = 0, bytes = 0;
    try {
        client.stream<v1::ExportGamesStreamRequest, v1::ExportGamesStreamChunk>(
            &v1::UserService::Stub::ExportGamesStream, request,
            [&](const v1::ExportGamesStreamChunk& chunk) {
                out.write(chunk.gzip().data(), std::streamsize(chunk.gzip().size()));
                if (!out) throw std::runtime_error("writing the games failed");
                games = chunk.games();
                bytes += chunk.gzip().size();
                progress.show(std::to_string(games) + " games, " + std::to_string(bytes >> 10) +
                              " KiB of gzip");
            });
        out.flush();
        if (!out) throw std::runtime_error("writing the games failed");
    } catch (...) {
        progress.finish();
        if (!to_stdout) {
            file.close();
            std::filesystem::remove(*args.out);
        }
        throw;
    }
    progress.finish();
    std::cerr << games << (games == 1 ? " game" : " games") << " written to "
              << (to_stdout ? "standard output" : *args.out) << " (gzip, " << bytes << " bytes)\n";
    return 0;
}

// Runs `export`: one run's games as PGN, page by page (gzip when --out names a .gz file, as a
// bulk export); a selection or other than one run is a bulk export; `export positions`
// writes a generation run's labelled positions instead.
int export_games(const ExportFlags& args) {
    if (!args.arguments.empty() && args.arguments[0] == "positions") {
        if (args.selection.any())
            throw UsageError(
                "--version, --tc, --kind, --result, --since and --until select "
                "games, not positions");
        return export_positions(args);
    }
    for (const CLI::Option* option : {args.run_option, args.format_option})
        if (given(option)) throw UsageError(option->get_name() + " goes with export positions");
    if (args.selection.any() || args.arguments.size() != 1 || (args.out && *args.out == "-") ||
        (args.out && gzip_path(*args.out)))
        return export_bulk(args);
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
    return {"export",
            "export games as PGN (one run), or as .pgn.gz across runs by version, time "
            "control, kind, result and date; or a generation run's labelled positions",
            "RUN [--out FILE] | [RUN...] [--version V] [--tc TC] [--kind K] [--result R] "
            "[--since TIME] [--until TIME] [--out FILE.pgn.gz|-] | positions --run RUN --out "
            "FILE [--format F]\n"
            "A bulk export (a selection flag, no run or several, or --out *.gz or -) streams one\n"
            ".pgn.gz; its flags combine with AND, a repeated flag takes any of its values.\n"
            "TIME is UTC: YYYY-MM-DD, YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS; a game's time is\n"
            "when its batch was leased. --result win|draw|loss is the test version's.",
            declare_flags<ExportFlags, export_games>};
}

}  // namespace sparring::cli
