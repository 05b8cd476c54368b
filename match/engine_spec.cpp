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

// What the keys of an engine spec give, before they are checked together.
struct SpecKeys {
    PlayerSpec spec;
    std::optional<BuiltinSpec> builtin;
    std::optional<UciSpec> uci;
    std::string default_name;
    std::vector<std::pair<std::string, int>> param_overrides;
    std::optional<int> hash;
    bool has_uci_keys = false;
};

// Reads one KEY=VALUE into keys; returns why it cannot, or an empty string.
std::string read_key(const std::string& key, const std::string& value, SpecKeys& keys) {
    std::string why;
    if (key == "name") {
        keys.spec.name = value;
    } else if (key == "builtin") {
        if (keys.builtin) return "'builtin' given twice";
        keys.builtin.emplace();
        if (!read_builtin(value, &*keys.builtin, &keys.default_name, &why)) return why;
    } else if (key.rfind("param.", 0) == 0) {
        auto number = parse_int(value, -1000000, 1000000);
        if (!number) return "'" + key + "' needs an integer, got '" + value + "'";
        keys.param_overrides.emplace_back(key.substr(6), *number);
    } else if (key == "hash") {
        keys.hash = parse_int(value, 1, 65536);
        if (!keys.hash) return "hash must be 1 to 65536 MB, got '" + value + "'";
    } else if (key == "cmd") {
        if (keys.uci) return "'cmd' given twice";
        keys.uci.emplace();
        keys.uci->command = value;
        keys.default_name = std::filesystem::path(value).filename().string();
    } else if (key == "arg" || key == "dir" || key.rfind("option.", 0) == 0) {
        keys.has_uci_keys = true;
        if (!keys.uci) keys.uci.emplace();
        if (key == "arg")
            keys.uci->args.push_back(value);
        else if (key == "dir")
            keys.uci->working_dir = value;
        else
            keys.uci->options.emplace_back(key.substr(7), value);
    } else if (key == "margin") {
        auto margin = parse_int(value, 0, 3600000);
        if (!margin) return "margin must be 0 to 3600000 ms, got '" + value + "'";
        keys.spec.time_margin_ms = *margin;
    } else {
        return "unknown key '" + key + "'";
    }
    return "";
}

// Checks that the keys fit together and writes the engine into keys.spec; returns why they do
// not, or an empty string.
std::string assemble(SpecKeys& keys) {
    PlayerSpec& spec = keys.spec;
    if (keys.builtin && keys.uci)
        return "give either builtin or cmd (with arg, dir, option.*), not both";
    if (!keys.builtin && (!keys.uci || keys.uci->command.empty()))
        return keys.has_uci_keys ? "arg, dir and option.* need cmd=COMMAND"
                                 : "needs builtin or cmd=COMMAND";
    if (keys.uci && (keys.hash || !keys.param_overrides.empty()))
        return "hash and param.* belong to the built-in engine; use option.Hash for UCI";
    std::string why;
    if (keys.builtin) {
        for (const auto& [name, value] : keys.param_overrides)
            if (!keys.builtin->params.set(name, value, &why)) return why;
        if (keys.hash) keys.builtin->hash_mb = *keys.hash;
        spec.engine = *keys.builtin;
    } else {
        if (std::string why_not = check_uci_options(keys.uci->options); !why_not.empty())
            return why_not;
        spec.engine = *keys.uci;
    }
    if (spec.name.empty()) spec.name = keys.default_name;
    return "";
}

}  // namespace

// Expands a shorthand into keys, reads the keys, then checks they fit together.
std::optional<PlayerSpec> parse_player_spec(std::string_view text, std::string* error) {
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

    SpecKeys keys;
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
        if (std::string why = read_key(key, value, keys); !why.empty()) return fail(why);
    }
    std::string why = assemble(keys);
    if (!why.empty()) return fail(why);
    return std::move(keys.spec);
}

}  // namespace sparring::match
