// The `sparring` user CLI: one CLI11 subcommand per entry of the command table.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "cli/commands.h"

using sparring::cli::Command;

// Declares every command, parses the command line and runs the chosen command.
int main(int argc, char** argv) {
    CLI::App app("Engine matches, statistics and the coordinator's runs.", "sparring");
    sparring::set_synopsis(app, "COMMAND [FLAGS]");
    app.require_subcommand(1);
    std::vector<std::function<int()>> runs;  // of each command, its flags bound
    for (const Command& c : sparring::cli::commands()) {
        CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.summary));
        // The first line of a command's usage is its synopsis, the rest goes below its flags.
        const std::size_t line_end = c.usage.find('\n');
        sparring::set_synopsis(*sub, std::string(c.usage.substr(0, line_end)));
        if (line_end != std::string_view::npos)
            sub->footer(std::string(c.usage.substr(c.usage.find_first_not_of('\n', line_end))));
        runs.push_back(c.declare(*sub));
    }
    // Set after the subcommands, which would inherit it.
    app.footer("'sparring COMMAND --help' shows a command's flags.");
    // `sparring help [COMMAND]` is `sparring [COMMAND] --help`.
    std::vector<const char*> arguments(argv, argv + argc);
    if (argc > 1 && arguments[1] == std::string_view("help")) {
        arguments.erase(arguments.begin() + 1);
        arguments.push_back("--help");
    }
    return sparring::run_command_line(app, int(arguments.size()), arguments.data(), [&] {
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (app.got_subcommand(std::string(sparring::cli::commands()[i].name)))
                return runs[i]();
        throw std::logic_error("CLI11 chose no command");
    });
}
