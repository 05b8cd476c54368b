// The commands of the `sparring` CLI: one table that main dispatches over and prints as help.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "common/flags.h"

namespace sparring::cli {

// A CLI command: its flags are parsed (and `--help` answered) before its run is called; the
// run returns the exit status and throws UsageError for a mistake on the command line.
struct Command {
    std::string_view name;
    std::string_view summary;  // one line
    std::string_view usage;    // the synopsis after "sparring NAME"; further lines end the help
    // Declares the command's typed flags on its app and returns its run.
    std::function<int()> (*declare)(CLI::App& app);
};

// Returns Command::declare of a command whose flags are a struct F, declared on its app by
// F(app), and whose run is run(flags).
template <typename F, int (*run)(const F&)>
std::function<int()> declare_flags(CLI::App& app) {
    auto flags = std::make_shared<F>(app);
    return [flags] { return run(*flags); };
}

// Returns every command, in the order help lists them.
std::span<const Command> commands();

// Returns `sparring stats`: Elo, LOS, nElo and SPRT of result counts.
Command stats_command();
// Returns `sparring match`: paired games between engines on this machine.
Command match_command();
// Returns `sparring book`: generation of an opening book.
Command book_command();
// Returns `sparring train`: Texel fitting of the evaluation to labelled positions.
Command train_command();
// Returns `sparring positions`: conversion of labelled-position files.
Command positions_command();

// The remote commands, which talk to a coordinator (cli/NAME_command.cpp each,
// cli/tune_commands.cpp).
Command versions_command();
Command submit_command();
Command runs_command();
Command show_command();
Command stop_command();
Command modify_command();
Command resume_command();
Command notify_command();
Command workers_command();
Command purge_command();
Command export_command();
Command tune_history_command();
// The evidence of faulty games (cli/faults_command.cpp).
Command faults_command();
Command repro_command();

}  // namespace sparring::cli
