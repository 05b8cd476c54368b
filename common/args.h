// Command-line flags of the sparring CLI: `--name value`, `--name=value`, boolean `--name` and
// positional arguments, checked against the flags each command declares, with typed getters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::cli {

// A mistake on the command line: the CLI prints it on one line and exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A flag a command accepts.
struct Flag {
    std::string_view name;   // without the leading "--"
    std::string_view value;  // placeholder shown in help, e.g. "N"; empty for a boolean flag
    std::string_view help;   // one line
};

class Args {
  public:
    // Parses tokens against the declared flags (`--help` is always accepted); throws
    // UsageError for an unknown flag, a missing value, a value given to a boolean flag or a
    // flag given twice. After "--" every token is positional.
    Args(std::span<const std::string_view> tokens, std::span<const Flag> flags);

    // Returns whether `--help` was given.
    bool help() const { return help_; }
    // Returns whether a flag was given.
    bool has(std::string_view name) const;
    // Returns the arguments that are not flags, in order.
    const std::vector<std::string>& positional() const { return positional_; }

    // Returns a flag's value; throws UsageError when the flag is missing.
    std::string get_string(std::string_view name) const;
    // Returns a flag's value, or the fallback when the flag is missing.
    std::string get_string(std::string_view name, std::string_view fallback) const;
    // Returns a flag's integer value; throws UsageError when it is missing or malformed.
    int64_t get_int(std::string_view name) const;
    // Returns a flag's integer value or the fallback; throws UsageError when malformed.
    int64_t get_int(std::string_view name, int64_t fallback) const;
    // Returns a flag's integer value or the fallback; throws UsageError when it is malformed
    // or outside [min, max].
    int64_t get_int_in(std::string_view name, int64_t fallback, int64_t min, int64_t max) const;
    // Returns a flag's finite real value; throws UsageError when it is missing or malformed.
    double get_double(std::string_view name) const;
    // Returns a flag's finite real value or the fallback; throws UsageError when malformed.
    double get_double(std::string_view name, double fallback) const;
    // Returns a flag's comma-separated integers; throws UsageError when missing or malformed.
    std::vector<int64_t> get_int_list(std::string_view name) const;

  private:
    // Returns the value of a declared flag that takes one, or nullopt when it was not given.
    std::optional<std::string> value_of(std::string_view name) const;

    std::span<const Flag> flags_;
    std::map<std::string, std::string, std::less<>> values_;
    std::vector<std::string> positional_;
    bool help_ = false;
};

// Returns the help text of a command: usage line, summary and one line per flag.
std::string format_help(std::string_view command, std::string_view usage, std::string_view summary,
                        std::span<const Flag> flags);

}  // namespace sparring::cli
