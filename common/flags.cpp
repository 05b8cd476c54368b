#include "common/flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iostream>

namespace sparring {

namespace {

// Returns text without leading and trailing spaces.
std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(' ');
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// Parses a whole string as a number of type T, or returns nullopt.
template <typename T>
std::optional<T> parse_number(std::string_view text) {
    text = trim(text);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

// Parses a flag's integer value; throws UsageError when malformed.
int64_t to_int(std::string_view name, const std::string& text) {
    const auto value = parse_number<int64_t>(text);
    if (!value) throw UsageError("--" + std::string(name) + ": '" + text + "' is not an integer");
    return *value;
}

// Parses a flag's real value; throws UsageError when malformed or not finite.
double to_double(std::string_view name, const std::string& text) {
    const auto value = parse_number<double>(text);
    if (!value || !std::isfinite(*value))
        throw UsageError("--" + std::string(name) + ": '" + text + "' is not a number");
    return *value;
}

// Parses a flag's comma-separated integers; throws UsageError when one is malformed.
std::vector<int64_t> to_int_list(std::string_view name, const std::string& text) {
    std::vector<int64_t> list;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        list.push_back(to_int(name, text.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return list;
}

// Throws UsageError unless min <= value <= max.
int64_t check_range(std::string_view name, int64_t value, int64_t min, int64_t max) {
    if (value < min || value > max)
        throw UsageError("--" + std::string(name) + " must be from " + std::to_string(min) +
                         " to " + std::to_string(max));
    return value;
}

// The help layout of CLI11 with our usage line first: "usage: PROGRAM COMMAND SYNOPSIS".
class SynopsisFormatter : public CLI::Formatter {
  public:
    explicit SynopsisFormatter(std::string synopsis) : synopsis_(std::move(synopsis)) {}

    // Returns the usage line.
    std::string make_usage(const CLI::App*, std::string name) const override {
        return "usage: " + name + (synopsis_.empty() ? "" : " ") + synopsis_ + "\n\n";
    }

    // Returns the whole help text: usage, summary, flags, subcommands, footer.
    std::string make_help(const CLI::App* app, std::string name,
                          CLI::AppFormatMode mode) const override {
        if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
        return make_usage(app, name) + make_description(app) + make_positionals(app) +
               make_groups(app, mode) + make_subcommands(app, mode) + "\n" + make_footer(app);
    }

  private:
    std::string synopsis_;
};

// Returns the program and the chosen subcommands: "sparring-coordinator serve".
std::string command_path(const CLI::App& app) {
    std::string path = app.get_name();
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
        sub = sub->get_subcommands().front();
        path += " " + sub->get_name();
    }
    return path;
}

}  // namespace

double real_value(std::string_view name, const std::string& text) {
    return to_double(name, text);
}

std::string environment_name(std::string_view flag) {
    std::string name = "SPARRING_";
    for (char c : flag) name += c == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

namespace {

// Returns "--name".
std::string long_name(std::string_view name) {
    return "--" + std::string(name);
}

// Adds --name VALUE taking one value (an error when given twice), shown as placeholder.
CLI::Option* add_value(CLI::Option* option, std::string_view placeholder,
                       std::string_view fallback) {
    option->type_name(std::string(placeholder))->multi_option_policy(CLI::MultiOptionPolicy::Throw);
    if (!fallback.empty()) option->default_str(std::string(fallback));
    return option;
}

// Adds --name VALUE that may be given more than once; read gets every value given, in order.
CLI::Option* add_repeated(CLI::App& app, std::string_view name, std::string_view placeholder,
                          std::string_view help, std::function<void(const CLI::results_t&)> read) {
    return app
        .add_option(
            long_name(name),
            [read = std::move(read)](const CLI::results_t& texts) {
                read(texts);
                return true;
            },
            std::string(help))
        ->type_name(std::string(placeholder))
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// Returns the values of a repeated list flag as one list: "A=1" and "B=2" are "A=1,B=2".
std::string joined(const CLI::results_t& texts) {
    std::string list;
    for (size_t i = 0; i < texts.size(); ++i) list += (i == 0 ? "" : ",") + texts[i];
    return list;
}

// Returns a check that rewrites an integer in our syntax as CLI11 reads it, or throws our
// message.
CLI::Validator integer(std::string_view name) {
    return CLI::Validator(
        [name = std::string(name)](std::string& text) {
            text = std::to_string(to_int(name, text));
            return std::string();
        },
        "", "integer");
}

// Returns a check that rewrites a finite real number as CLI11 reads it, or throws our message.
CLI::Validator real(std::string_view name) {
    return CLI::Validator(
        [name = std::string(name)](std::string& text) {
            char buffer[64];
            const double value = to_double(name, text);
            const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
            text.assign(buffer, end);
            return std::string();
        },
        "", "real");
}

// Adds --name VALUE into value, its text checked (and rewritten) by check.
template <typename T>
CLI::Option* add_checked(CLI::App& app, std::string_view name, T& value,
                         std::string_view placeholder, std::string_view help,
                         std::string_view fallback, CLI::Validator check) {
    return add_value(app.add_option(long_name(name), value, std::string(help)), placeholder,
                     fallback)
        ->transform(std::move(check));
}

}  // namespace

CLI::Option* add_switch(CLI::App& app, std::string_view name, bool& set, std::string_view help) {
    return app.add_flag(long_name(name), set, std::string(help))
        ->disable_flag_override()
        ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::string& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback) {
    if (!fallback.empty()) value = std::string(fallback);
    return add_value(app.add_option(long_name(name), value, std::string(help)), placeholder,
                     fallback);
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<std::string>& value,
                      std::string_view placeholder, std::string_view help) {
    return add_value(app.add_option(long_name(name), value, std::string(help)), placeholder, {});
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, int64_t& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback) {
    if (!fallback.empty()) value = to_int(name, std::string(fallback));
    return add_checked(app, name, value, placeholder, help, fallback, integer(name));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, int64_t& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback, int64_t min, int64_t max) {
    return in_range(add_flag(app, name, value, placeholder, help, fallback), min, max);
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<int64_t>& value,
                      std::string_view placeholder, std::string_view help) {
    return add_checked(app, name, value, placeholder, help, {}, integer(name));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, double& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback) {
    if (!fallback.empty()) value = to_double(name, std::string(fallback));
    return add_checked(app, name, value, placeholder, help, fallback, real(name));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::optional<double>& value,
                      std::string_view placeholder, std::string_view help) {
    return add_checked(app, name, value, placeholder, help, {}, real(name));
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<std::string>& values,
                      std::string_view placeholder, std::string_view help) {
    return app.add_option(long_name(name), values, std::string(help))
        ->type_name(std::string(placeholder))
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* add_flag(CLI::App& app, std::string_view name, std::vector<int64_t>& values,
                      std::string_view placeholder, std::string_view help) {
    return add_repeated(app, name, placeholder, help,
                        [&values, name = std::string(name)](const CLI::results_t& texts) {
                            values.clear();
                            for (const std::string& text : texts)
                                for (const int64_t value : to_int_list(name, text))
                                    values.push_back(value);
                        });
}

CLI::Option* add_list(CLI::App& app, std::string_view name, std::string& value,
                      std::string_view placeholder, std::string_view help,
                      std::string_view fallback) {
    if (!fallback.empty()) value = std::string(fallback);
    CLI::Option* option =
        add_repeated(app, name, placeholder, help,
                     [&value](const CLI::results_t& texts) { value = joined(texts); });
    if (!fallback.empty()) option->default_str(std::string(fallback));
    return option;
}

CLI::Option* add_list(CLI::App& app, std::string_view name, std::optional<std::string>& value,
                      std::string_view placeholder, std::string_view help) {
    return add_repeated(app, name, placeholder, help,
                        [&value](const CLI::results_t& texts) { value = joined(texts); });
}

void add_arguments(CLI::App& app, std::vector<std::string>& arguments) {
    app.add_option("arguments", arguments)->group("");
}

CLI::Option* in_range(CLI::Option* option, int64_t min, int64_t max) {
    return option->check(CLI::Validator(
        [name = option->get_name(), min, max](std::string& text) {
            check_range(std::string_view(name).substr(2), std::stoll(text), min, max);
            return std::string();
        },
        "", "range"));
}

CLI::Option* one_of(CLI::Option* option, std::vector<std::string> words) {
    return option->check(CLI::Validator(
        [name = option->get_name(), words = std::move(words)](std::string& text) {
            if (std::find(words.begin(), words.end(), text) != words.end()) return std::string();
            std::string listed;
            for (size_t i = 0; i < words.size(); ++i)
                listed += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
            throw UsageError(name + " must be " + listed);
        },
        "", "one of"));
}

CLI::Option* from_environment(CLI::Option* option) {
    return option->envname(environment_name(option->get_single_name()));
}

void every_flag_from_environment(CLI::App& app) {
    for (CLI::Option* option : app.get_options([](const CLI::Option* o) {
             return !o->get_lnames().empty() && o->get_lnames().front() != "help";
         }))
        from_environment(option);
}

bool given(const CLI::Option* option) {
    return option->count() > 0;
}

void require(const CLI::Option* option) {
    if (given(option)) return;
    std::string message = option->get_name() + " is required";
    if (!option->get_envname().empty()) message += " (or set " + option->get_envname() + ")";
    throw UsageError(message);
}

void set_synopsis(CLI::App& app, std::string synopsis) {
    app.formatter(std::make_shared<SynopsisFormatter>(std::move(synopsis)));
}

int run_command_line(CLI::App& app, int argc, const char* const* argv,
                     const std::function<int()>& run) {
    // CLI11 would report a missing or mistyped command as "A subcommand is required".
    const auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
    if (!subcommands.empty() && argc < 2) {
        std::cerr << app.help();
        return 2;
    }
    if (!subcommands.empty() && argc > 1 && argv[1][0] != '-' &&
        std::none_of(subcommands.begin(), subcommands.end(),
                     [&](const CLI::App* sub) { return sub->check_name(argv[1]); })) {
        std::cerr << app.get_name() << ": unknown command '" << argv[1] << "' (see '"
                  << app.get_name() << " --help')\n";
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const UsageError& e) {  // a typed flag's value, checked on parsing
        std::cerr << command_path(app) << ": " << e.what() << "\n";
        return 2;
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << command_path(app) << ": " << e.what() << "\n";
        return 2;
    }
    try {
        return run();
    } catch (const UsageError& e) {
        std::cerr << command_path(app) << ": " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << command_path(app) << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace sparring
