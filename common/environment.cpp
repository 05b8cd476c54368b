#include "common/environment.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace sparring::cli {

namespace {

// Returns whether the tokens give a flag, as `--name`, `--name value` or `--name=value`.
bool given(std::span<const std::string_view> tokens, std::string_view name) {
    for (std::string_view token : tokens) {
        if (token == "--") return false;
        if (!token.starts_with("--")) continue;
        token.remove_prefix(2);
        if (token == name ||
            (token.starts_with(name) && token.size() > name.size() && token[name.size()] == '='))
            return true;
    }
    return false;
}

}  // namespace

std::string environment_name(std::string_view flag) {
    std::string name = "SPARRING_";
    for (char c : flag) name += c == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

std::vector<std::string> with_environment(std::span<const std::string_view> tokens,
                                          std::span<const Flag> flags) {
    std::vector<std::string> result(tokens.begin(), tokens.end());
    // Appended flags must come before a "--", after which every token is positional.
    const auto end = std::find(result.begin(), result.end(), "--");
    std::vector<std::string> added;
    for (const Flag& flag : flags) {
        if (given(tokens, flag.name)) continue;
        const std::string variable = environment_name(flag.name);
        const char* value = std::getenv(variable.c_str());
        if (!value || !*value) continue;
        const std::string text = value;
        if (flag.value.empty()) {
            if (text == "1" || text == "true" || text == "yes")
                added.push_back("--" + std::string(flag.name));
            else if (text != "0" && text != "false" && text != "no")
                throw UsageError(variable + " must be 1, true, yes, 0, false or no");
            continue;
        }
        added.push_back("--" + std::string(flag.name));
        added.push_back(text);
    }
    result.insert(end, added.begin(), added.end());
    return result;
}

}  // namespace sparring::cli
