#include "match/engine_spec.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "match/uci_options.h"

namespace sparring::match {

namespace {

// Parses a whole string as an integer in [min, max].
std::optional<int> parse_int(std::string_view text, int min, int max) {
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
        return std::nullopt;
    return value;
}

// Resolves "PRESET" or "FILE.json" into parameters and a default name.
bool read_builtin(std::string_view value, BuiltinSpec* builtin, std::string* default_name,
                  std::string* error) {
    if (auto preset = ParamSet::preset(value)) {
        builtin->params = *preset;
        *default_name = "builtin-" + std::string(value);
        return true;
    }
    std::ifstream in{std::string(value)};
    if (!in) {
        std::string presets;
        for (std::string_view name : ParamSet::preset_names()) {
            if (!presets.empty()) presets += ", ";
            presets += name;
        }
        std::string message = "'";
        message += value;
        *error = message + "' is neither a preset (" + presets + ") nor a readable parameter file";
        return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string why;
    auto params = ParamSet::from_json(text.str(), ParamSet(), &why);
    if (!params) {
        *error = "parameter file '" + std::string(value) + "': " + why;
        return false;
    }
    builtin->params = *params;
    *default_name = std::filesystem::path(value).stem().string();
    return true;
}

}  // namespace

// Expands a shorthand into keys, reads the keys, then checks they fit together.
std::optional<PlayerSpec> parse_player_spec(std::string_view text, std::string* error) {
    std::string why;
    auto fail = [&](const std::string& message) -> std::optional<PlayerSpec> {
        if (error) *error = "engine '" + std::string(text) + "': " + message;
        return std::nullopt;
    };
    if (text.empty()) return fail("empty engine");

    std::string keyed(text);
    if (text.find('=') == std::string_view::npos) {
        if (text == "builtin")
            keyed = "builtin=default";
        else if (text.rfind("builtin:", 0) == 0)
            keyed = "builtin=" + std::string(text.substr(8));
        else
            keyed = "cmd=" + std::string(text);
    }

    PlayerSpec spec;
    std::optional<BuiltinSpec> builtin;
    std::optional<UciSpec> uci;
    std::string default_name;
    std::vector<std::pair<std::string, int>> param_overrides;
    std::optional<int> hash;
    bool has_uci_keys = false;
    std::size_t pos = 0;
    while (pos <= keyed.size()) {
        std::size_t comma = keyed.find(',', pos);
        if (comma == std::string::npos) comma = keyed.size();
        std::string item = keyed.substr(pos, comma - pos);
        pos = comma + 1;
        std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return fail("expected KEY=VALUE, got '" + item + "'");
        std::string key = item.substr(0, eq);
        std::string value = item.substr(eq + 1);
        if (value.empty()) return fail("'" + key + "' needs a value");
        if (key == "name") {
            spec.name = value;
        } else if (key == "builtin") {
            if (builtin) return fail("'builtin' given twice");
            builtin.emplace();
            if (!read_builtin(value, &*builtin, &default_name, &why)) return fail(why);
        } else if (key.rfind("param.", 0) == 0) {
            auto number = parse_int(value, -1000000, 1000000);
            if (!number) return fail("'" + key + "' needs an integer, got '" + value + "'");
            param_overrides.emplace_back(key.substr(6), *number);
        } else if (key == "hash") {
            hash = parse_int(value, 1, 65536);
            if (!hash) return fail("hash must be 1 to 65536 MB, got '" + value + "'");
        } else if (key == "cmd") {
            if (uci) return fail("'cmd' given twice");
            uci.emplace();
            uci->command = value;
            default_name = std::filesystem::path(value).filename().string();
        } else if (key == "arg" || key == "dir" || key.rfind("option.", 0) == 0) {
            has_uci_keys = true;
            if (!uci) uci.emplace();
            if (key == "arg")
                uci->args.push_back(value);
            else if (key == "dir")
                uci->working_dir = value;
            else
                uci->options.emplace_back(key.substr(7), value);
        } else if (key == "margin") {
            auto margin = parse_int(value, 0, 3600000);
            if (!margin) return fail("margin must be 0 to 3600000 ms, got '" + value + "'");
            spec.time_margin_ms = *margin;
        } else {
            return fail("unknown key '" + key + "'");
        }
    }

    if (builtin && uci)
        return fail("give either builtin or cmd (with arg, dir, option.*), not both");
    if (!builtin && (!uci || uci->command.empty()))
        return fail(has_uci_keys ? "arg, dir and option.* need cmd=COMMAND"
                                 : "needs builtin or cmd=COMMAND");
    if (uci && (hash || !param_overrides.empty()))
        return fail("hash and param.* belong to the built-in engine; use option.Hash for UCI");
    if (builtin) {
        for (const auto& [name, value] : param_overrides)
            if (!builtin->params.set(name, value, &why)) return fail(why);
        if (hash) builtin->hash_mb = *hash;
        spec.engine = *builtin;
    } else {
        if (const std::string why_not = check_uci_options(uci->options); !why_not.empty())
            return fail(why_not);
        spec.engine = *uci;
    }
    if (spec.name.empty()) spec.name = default_name;
    return spec;
}

}  // namespace sparring::match
