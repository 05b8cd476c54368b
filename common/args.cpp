#include "common/args.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace sparring::cli {

namespace {

// Returns the declared flag of a name, or nullptr.
const Flag* find_flag(std::span<const Flag> flags, std::string_view name) {
    auto it =
        std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.name == name; });
    return it == flags.end() ? nullptr : &*it;
}

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

}  // namespace

Args::Args(std::span<const std::string_view> tokens, std::span<const Flag> flags) : flags_(flags) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string_view token = tokens[i];
        if (token == "--") {
            for (++i; i < tokens.size(); ++i) positional_.emplace_back(tokens[i]);
            break;
        }
        if (!token.starts_with("--")) {
            if (token.size() > 1 && token[0] == '-' && !parse_number<double>(token))
                throw UsageError("unknown option '" + std::string(token) + "'");
            positional_.emplace_back(token);
            continue;
        }
        const std::string_view body = token.substr(2);
        const auto equals = body.find('=');
        const std::string_view name = body.substr(0, equals);
        if (name == "help") {
            if (equals != std::string_view::npos) throw UsageError("--help takes no value");
            help_ = true;
            continue;
        }
        const Flag* flag = find_flag(flags, name);
        if (!flag) throw UsageError("unknown flag --" + std::string(name));
        if (values_.contains(name)) throw UsageError("--" + std::string(name) + " given twice");
        std::string value;
        if (flag->value.empty()) {
            if (equals != std::string_view::npos)
                throw UsageError("--" + std::string(name) + " takes no value");
        } else if (equals != std::string_view::npos) {
            value = body.substr(equals + 1);
        } else if (i + 1 < tokens.size()) {
            value = tokens[++i];
        } else {
            throw UsageError("--" + std::string(name) + " needs a value " +
                             std::string(flag->value));
        }
        values_.emplace(name, std::move(value));
    }
}

bool Args::has(std::string_view name) const {
    if (!find_flag(flags_, name)) throw std::logic_error("undeclared flag --" + std::string(name));
    return values_.contains(name);
}

std::optional<std::string> Args::value_of(std::string_view name) const {
    const Flag* flag = find_flag(flags_, name);
    if (!flag || flag->value.empty())
        throw std::logic_error("--" + std::string(name) + " is not a declared flag with a value");
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::get_string(std::string_view name) const {
    auto value = value_of(name);
    if (!value) throw UsageError("--" + std::string(name) + " is required");
    return *value;
}

std::string Args::get_string(std::string_view name, std::string_view fallback) const {
    return value_of(name).value_or(std::string(fallback));
}

int64_t Args::get_int(std::string_view name) const {
    return to_int(name, get_string(name));
}

int64_t Args::get_int(std::string_view name, int64_t fallback) const {
    const auto value = value_of(name);
    return value ? to_int(name, *value) : fallback;
}

int64_t Args::get_int_in(std::string_view name, int64_t fallback, int64_t min, int64_t max) const {
    const int64_t value = get_int(name, fallback);
    if (value < min || value > max)
        throw UsageError("--" + std::string(name) + " must be from " + std::to_string(min) +
                         " to " + std::to_string(max));
    return value;
}

double Args::get_double(std::string_view name) const {
    return to_double(name, get_string(name));
}

double Args::get_double(std::string_view name, double fallback) const {
    const auto value = value_of(name);
    return value ? to_double(name, *value) : fallback;
}

std::vector<int64_t> Args::get_int_list(std::string_view name) const {
    const std::string text = get_string(name);
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

std::string format_help(std::string_view command, std::string_view usage, std::string_view summary,
                        std::span<const Flag> flags) {
    std::ostringstream out;
    out << "usage: sparring " << command << (usage.empty() ? "" : " ") << usage << "\n\n"
        << summary << "\n";
    std::size_t width = 6;  // "--help"
    for (const Flag& f : flags)
        width = std::max(width, f.name.size() + 2 + (f.value.empty() ? 0 : f.value.size() + 1));
    out << "\nflags:\n";
    for (const Flag& f : flags) {
        std::string left = "--";
        left += f.name;
        if (!f.value.empty()) left.append(" ").append(f.value);
        out << "  " << left << std::string(width - left.size() + 2, ' ') << f.help << "\n";
    }
    out << "  --help" << std::string(width - 6 + 2, ' ') << "show this help\n";
    return out.str();
}

}  // namespace sparring::cli
