// Command-line flags on CLI11: a command declares its flags on its CLI::App, each bound to a
// variable of its own type, with their defaults, range checks and environment variables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace sparring {

// A mistake on the command line: printed on one line, and the process exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Returns the name of a flag's environment variable: SPARRING_ and the flag in upper case
// with '-' as '_' (--lease-seconds is SPARRING_LEASE_SECONDS).
std::string environment_name(std::string_view flag);

// Typed flags: a command binds each flag to a variable of its own type, so a misspelt flag is a
// compile error. A value is checked on parsing with our messages ("--n: 'x' is not an integer",
// "--n must be from 1 to 9"), which run_command_line prints as any mistake on the command line.
// A flag's default is its fallback text, parsed into the variable and shown in help; a flag
// without one keeps the variable's value (an empty optional: the caller computes a default).

// Returns the finite real number of a flag's text; throws UsageError ("--x: 'y' is not a
// number").
double real_value(std::string_view name, const std::string& text);

// Adds the boolean flag --name, which sets `set`.
CLI::Option* add_switch(CLI::App& app, std::string_view name, bool& set, std::string_view help);
// Adds --name VALUE (shown as placeholder) into value.
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::string& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback = {});
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<std::string>& value,
                      std::string_view placeholder, std::string_view help);
CLI::Option* add_flag(CLI::App& app, std::string_view name, int64_t& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback = {});
// Adds an integer flag whose value must be from min to max (see in_range).
CLI::Option* add_flag(CLI::App& app, std::string_view name, int64_t& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback, int64_t min, int64_t max);
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<int64_t>& value,
                      std::string_view placeholder, std::string_view help);
CLI::Option* add_flag(CLI::App& app, std::string_view name, double& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback = {});
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<double>& value,
                      std::string_view placeholder, std::string_view help);
// Adds --name VALUE that may be given more than once: every value, in order.
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<std::string>& values,
                      std::string_view placeholder, std::string_view help);
// Adds --name A,B,... of comma-separated integers; repeats accumulate (see add_list).
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<int64_t>& values,
                      std::string_view placeholder, std::string_view help);
// Adds --name A,B,... of a comma-separated list into value, the items read by its user. Repeats
// accumulate: `--set A=1 --set B=2` is `--set A=1,B=2` (a flag of one value refuses a repeat).
CLI::Option* add_list(CLI::App& app, std::string_view name, std::string& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback = {});
CLI::Option* add_list(CLI::App& app, std::string_view name, std::optional<std::string>& value,
                      std::string_view placeholder, std::string_view help);
// Adds the arguments that are not flags, in order, into arguments.
void add_arguments(CLI::App& app, std::vector<std::string>& arguments);

// Rejects an integer flag's value outside [min, max] ("--n must be from MIN to MAX").
CLI::Option* in_range(CLI::Option* option, int64_t min, int64_t max);
// Rejects a flag's value that is none of words ("--mode must be auto, on or off").
CLI::Option* one_of(CLI::Option* option, std::vector<std::string> words);
// Also reads a flag from its environment variable (see environment_name).
CLI::Option* from_environment(CLI::Option* option);
// Also reads every flag of app declared so far from its environment variable.
void every_flag_from_environment(CLI::App& app);
// Returns whether a flag was given, on the command line or in its variable.
bool given(const CLI::Option* option);
// Throws UsageError unless a flag was given: "--name is required (or set VARIABLE)".
void require(const CLI::Option* option);

// Sets the usage line of an app's help: "usage: PROGRAM [COMMAND] SYNOPSIS".
void set_synopsis(CLI::App& app, std::string synopsis);

// Parses the command line and calls run; prints help on stdout for --help (on stderr when an
// app with subcommands gets no argument), and any error as one line "PROGRAM [COMMAND]:
// message" on stderr. Returns run's status, 0 after help, 2 for a mistake on the command line
// and 1 for any other error.
int run_command_line(CLI::App& app, int argc, const char* const* argv,
                     const std::function<int()>& run);

}  // namespace sparring
