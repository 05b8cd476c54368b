#include "match/engine_options.h"

#include <charconv>
#include <map>

#include "match/child_process.h"
#include "match/uci_options.h"
#include "match/uci_player.h"

namespace sparring::match {

namespace {

// The words of an option line that start a field.
bool is_keyword(std::string_view word) {
    return word == "name" || word == "type" || word == "default" || word == "min" ||
           word == "max" || word == "var";
}

std::optional<int64_t> to_int(std::string_view text) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Splits a line on runs of spaces and tabs.
std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

}  // namespace

std::optional<EngineOption> parse_option_line(std::string_view line) {
    for (const char c : line)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return std::nullopt;
    const std::vector<std::string_view> words = words_of(line);
    if (words.empty() || words[0] != "option") return std::nullopt;
    // Each field runs to the next keyword; a name may hold spaces ("Skill Level"), a string
    // default may be "<empty>" or hold spaces.
    std::map<std::string_view, std::string> fields;
    std::string_view field;
    for (size_t i = 1; i < words.size(); ++i) {
        // "var" repeats (combo choices); within a name every word belongs to it up to "type".
        if (is_keyword(words[i]) && !(field == "name" && words[i] != "type")) {
            field = words[i];
            if (field != "var" && fields.count(field)) return std::nullopt;
            fields[field];
            continue;
        }
        if (field.empty()) return std::nullopt;
        std::string& value = fields[field];
        if (!value.empty()) value += ' ';
        value += words[i];
    }
    EngineOption option;
    option.name = fields["name"];
    option.type = fields["type"];
    if (option.name.empty() || option.type.empty() || option.name.size() > kMaxUciOptionNameBytes)
        return std::nullopt;
    if (option.type != "check" && option.type != "spin" && option.type != "combo" &&
        option.type != "button" && option.type != "string")
        return std::nullopt;
    option.default_value = fields["default"];
    if (option.default_value.size() > kMaxOptionDefaultBytes) return std::nullopt;
    if (option.type == "spin") {
        const auto min = to_int(fields["min"]), max = to_int(fields["max"]);
        const auto value = to_int(option.default_value);
        if (!min || !max || !value || *min > *max || *value < *min || *value > *max)
            return std::nullopt;
        option.min = *min;
        option.max = *max;
    }
    return option;
}

std::optional<std::vector<EngineOption>> read_engine_options(const UciSpec& engine, int timeout_ms,
                                                             std::string* error) {
    ChildProcess process;
    std::string why;
    if (!process.start(engine.command, engine.args, child_options_of(engine), &why)) {
        *error = engine.command + ": " + why;
        return std::nullopt;
    }
    std::vector<EngineOption> declared;
    const auto deadline =
        ChildProcess::Clock::now() + std::chrono::milliseconds(std::max(1, timeout_ms));
    const auto fail = [&](const std::string& message) {
        process.stop(std::chrono::milliseconds(100));
        *error = engine.command + ": " + message;
        return std::nullopt;
    };
    if (!process.write_line("uci")) return fail("does not read its input");
    std::string line;
    for (;;) {
        const ChildProcess::ReadStatus status = process.read_line(&line, deadline);
        if (status == ChildProcess::ReadStatus::Timeout)
            return fail("no 'uciok' within " + std::to_string(timeout_ms / 1000) + " s");
        if (status != ChildProcess::ReadStatus::Line)
            return fail("exited before 'uciok' (" + process.stop(std::chrono::milliseconds(100)) +
                        ")");
        if (line.rfind("uciok", 0) == 0) break;
        if (std::optional<EngineOption> option = parse_option_line(line)) {
            if (declared.size() == kMaxDeclaredOptions)
                return fail("declares over " + std::to_string(kMaxDeclaredOptions) + " options");
            declared.push_back(std::move(*option));
        }
    }
    process.write_line("quit");
    process.stop(std::chrono::milliseconds(1000));
    return declared;
}

std::string spin_options_difference(const std::vector<EngineOption>& recorded,
                                    const std::vector<EngineOption>& reported) {
    std::map<std::string, const EngineOption*> theirs;
    for (const EngineOption& o : reported)
        if (o.type == "spin") theirs[canonical_option_name(o.name)] = &o;
    std::string difference;
    const auto add = [&](const std::string& text) {
        difference += (difference.empty() ? "" : "; ") + text;
    };
    for (const EngineOption& o : recorded) {
        if (o.type != "spin") continue;
        const auto it = theirs.find(canonical_option_name(o.name));
        if (it == theirs.end()) {
            add("no spin option " + o.name);
            continue;
        }
        if (it->second->default_value != o.default_value || it->second->min != o.min ||
            it->second->max != o.max)
            add(o.name + " is " + option_text(*it->second) + ", recorded " + option_text(o));
        theirs.erase(it);
    }
    for (const auto& [name, o] : theirs) add("an unrecorded spin option " + o->name);
    return difference;
}

std::string check_engine_options(const std::vector<EngineOption>& options) {
    if (options.size() > kMaxDeclaredOptions)
        return std::to_string(options.size()) + " options, over " +
               std::to_string(kMaxDeclaredOptions);
    std::map<std::string, std::string> seen;
    for (const EngineOption& o : options) {
        // An option is what an option line of an engine can say: written as one and read back.
        std::string line = "option name " + o.name + " type " + o.type;
        if (o.type != "button") line += " default " + o.default_value;
        if (o.type == "spin")
            line += " min " + std::to_string(o.min) + " max " + std::to_string(o.max);
        const std::optional<EngineOption> read = parse_option_line(line);
        if (!read || read->name != o.name || read->type != o.type ||
            read->default_value != o.default_value || read->min != o.min || read->max != o.max)
            return "'" + o.name.substr(0, kMaxUciOptionNameBytes) +
                   "' is not an option an engine can declare (a name and a type of check, spin, "
                   "combo, button or string; a spin's default within its min and max)";
        const auto [at, added] = seen.emplace(canonical_option_name(o.name), o.name);
        if (!added) return "'" + o.name + "' and '" + at->second + "' are one option";
    }
    return "";
}

std::string option_text(const EngineOption& option) {
    std::string text = option.name + " " + option.type;
    if (option.type != "button")
        text += " " + (option.default_value.empty() ? "<empty>" : option.default_value);
    if (option.type == "spin")
        text += " [" + std::to_string(option.min) + ", " + std::to_string(option.max) + "]";
    return text;
}

}  // namespace sparring::match
