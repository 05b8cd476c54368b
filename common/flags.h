// Command-line flags on CLI11: a command declares a table of flags on its CLI::App, and reads
// them back by name with their declared defaults, range checks and environment variables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
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

// A flag a command accepts.
struct Flag {
    std::string_view name;           // without the leading "--"
    std::string_view value;          // placeholder shown in help, e.g. "N"; empty for a boolean
    std::string_view help;           // one line
    std::string_view fallback = {};  // the value when the flag is not given; shown in help
    bool environment = false;        // also read from its environment variable
    bool repeated = false;           // may be given more than once (see Flags::get_all)
};

// Whether every flag of a table is also read from its environment variable, or only those
// marked.
enum class Environment { Marked, EveryFlag };

// Whether a command takes arguments besides its flags.
enum class Arguments { None, Any };

// Returns the name of a flag's environment variable: SPARRING_ and the flag in upper case
// with '-' as '_' (--lease-seconds is SPARRING_LEASE_SECONDS).
std::string environment_name(std::string_view flag);

// Typed flags: a command binds each flag to a variable of its own type, so a misspelt flag is a
// compile error. A value is checked on parsing with our messages ("--n: 'x' is not an integer",
// "--n must be from 1 to 9"), which run_command_line prints as any mistake on the command line.
// A flag's default is its fallback text, parsed into the variable and shown in help; a flag
// without one keeps the variable's value (an empty optional: the caller computes a default).

// Returns the integer of a flag's text; throws UsageError ("--n: 'x' is not an integer").
int64_t integer_value(std::string_view name, const std::string& text);
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
// Adds --name A,B,... of comma-separated integers.
CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<int64_t>& values,
                      std::string_view placeholder, std::string_view help);
// Adds the arguments that are not flags, in order, into arguments.
void add_arguments(CLI::App& app, std::vector<std::string>& arguments);

// Rejects an integer flag's value outside [min, max] ("--n must be from MIN to MAX").
CLI::Option* in_range(CLI::Option* option, int64_t min, int64_t max);
// Also reads a flag from its environment variable (see environment_name).
CLI::Option* from_environment(CLI::Option* option);
// Also reads every flag of app declared so far from its environment variable.
void every_flag_from_environment(CLI::App& app);
// Returns whether a flag was given, on the command line or in its variable.
bool given(const CLI::Option* option);
// Throws UsageError unless a flag was given: "--name is required (or set VARIABLE)".
void require(const CLI::Option* option);

class Flags {
  public:
    // Declares the flags on app (and, for Arguments::Any, a list that takes the arguments).
    Flags(CLI::App& app, std::span<const Flag> flags, Arguments arguments = Arguments::Any,
          Environment environment = Environment::Marked);
    Flags(const Flags&) = delete;
    Flags& operator=(const Flags&) = delete;

    // Returns whether a flag was given, on the command line or in its variable.
    bool has(std::string_view name) const;
    // Returns the arguments that are not flags, in order.
    const std::vector<std::string>& positional() const { return positional_; }

    // Returns a flag's value or its declared default; throws UsageError when it has neither.
    std::string get_string(std::string_view name) const;
    // Returns a flag's value, or a default computed by the caller (for a flag declaring none).
    std::string get_string(std::string_view name, std::string_view fallback) const;
    // Returns a flag's integer value or its declared default; throws UsageError when it has
    // neither or is malformed.
    int64_t get_int(std::string_view name) const;
    // Returns a flag's integer value, or a default computed by the caller.
    int64_t get_int(std::string_view name, int64_t fallback) const;
    // Returns get_int(name); throws UsageError when it is outside [min, max].
    int64_t get_int_in(std::string_view name, int64_t min, int64_t max) const;
    // Returns get_int(name, fallback); throws UsageError when it is outside [min, max].
    int64_t get_int_in(std::string_view name, int64_t fallback, int64_t min, int64_t max) const;
    // Returns a flag's finite real value or its declared default; throws UsageError when it
    // has neither or is malformed.
    double get_double(std::string_view name) const;
    // Returns a flag's finite real value, or a default computed by the caller.
    double get_double(std::string_view name, double fallback) const;
    // Returns every value of a repeated flag, in order (none when not given).
    std::vector<std::string> get_all(std::string_view name) const;
    // Returns a flag's comma-separated integers; throws UsageError when missing or malformed.
    std::vector<int64_t> get_int_list(std::string_view name) const;

  private:
    struct Entry {
        const Flag* flag;
        CLI::Option* option;
        bool set;  // a boolean flag's value
    };

    // Returns the entry of a declared flag; throws std::logic_error for an undeclared one.
    const Entry& entry(std::string_view name) const;
    // Returns the value of a flag that takes one, else its declared default, else nullopt.
    std::optional<std::string> value_of(std::string_view name) const;
    // Returns the value of a flag without a declared default, else the caller's fallback.
    std::string value_or(std::string_view name, std::string_view fallback) const;

    std::vector<Entry> entries_;
    std::vector<std::string> positional_;
};

// Sets the usage line of an app's help: "usage: PROGRAM [COMMAND] SYNOPSIS".
void set_synopsis(CLI::App& app, std::string synopsis);

// Parses the command line and calls run; prints help on stdout for --help (on stderr when an
// app with subcommands gets no argument), and any error as one line "PROGRAM [COMMAND]:
// message" on stderr. Returns run's status, 0 after help, 2 for a mistake on the command line
// and 1 for any other error.
int run_command_line(CLI::App& app, int argc, const char* const* argv,
                     const std::function<int()>& run);

}  // namespace sparring
