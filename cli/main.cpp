// The `sparring` user CLI: dispatches to the command named by the first argument.
#include <algorithm>
#include <exception>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace {

using sparring::cli::Command;

// Prints the list of commands.
void print_overview(std::ostream& out) {
    out << "usage: sparring COMMAND [FLAGS]\n\ncommands:\n";
    std::size_t width = 0;
    for (const Command& c : sparring::cli::commands()) width = std::max(width, c.name.size());
    for (const Command& c : sparring::cli::commands())
        out << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << c.summary << "\n";
    out << "\n'sparring COMMAND --help' shows a command's flags.\n";
}

// Returns the command of a name, or nullptr.
const Command* find_command(std::string_view name) {
    for (const Command& c : sparring::cli::commands())
        if (c.name == name) return &c;
    return nullptr;
}

// Prints a command's help.
void print_help(const Command& c) {
    std::cout << sparring::cli::format_help(c.name, c.usage, c.summary, c.flags);
}

// Reports an unknown command and returns the usage-error status.
int unknown_command(std::string_view name) {
    std::cerr << "sparring: unknown command '" << name << "' (see 'sparring --help')\n";
    return 2;
}

}  // namespace

// Parses the command's flags, runs it, and turns its errors into one line on stderr.
int main(int argc, char** argv) {
    const std::vector<std::string_view> tokens(argv + 1, argv + argc);
    if (tokens.empty()) {
        print_overview(std::cerr);
        return 2;
    }
    if (tokens[0] == "--help" || tokens[0] == "-h" || tokens[0] == "help") {
        if (tokens.size() == 1) {
            print_overview(std::cout);
            return 0;
        }
        const Command* c = find_command(tokens[1]);
        if (!c) return unknown_command(tokens[1]);
        print_help(*c);
        return 0;
    }
    const Command* c = find_command(tokens[0]);
    if (!c) return unknown_command(tokens[0]);
    try {
        const std::span<const std::string_view> rest = std::span(tokens).subspan(1);
        const sparring::cli::Args args(rest, c->flags);
        if (args.help()) {
            print_help(*c);
            return 0;
        }
        return c->run(args);
    } catch (const sparring::cli::UsageError& e) {
        std::cerr << "sparring " << c->name << ": " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "sparring " << c->name << ": " << e.what() << "\n";
        return 1;
    }
}
