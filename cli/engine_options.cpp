#include "cli/engine_options.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "common/engine_archive.h"
#include "common/flags.h"
#include "match/child_process.h"
#include "match/engine_options.h"

namespace sparring::cli {

namespace {

// Returns text without spaces and tabs at either end.
std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

// Reads a finite number, all of text; nullopt otherwise.
std::optional<double> number(std::string_view text) {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

// Sets the numeric fields of a parameter from fields[1..5] (START MIN MAX C_END R_END);
// returns the index of the first malformed one (0: none).
size_t set_numbers(const std::vector<std::string_view>& fields, size_t first,
                   v1::TuneParam& param) {
    using Setter = void (v1::TuneParam::*)(double);
    const Setter setters[] = {&v1::TuneParam::set_start, &v1::TuneParam::set_min,
                              &v1::TuneParam::set_max, &v1::TuneParam::set_c_end,
                              &v1::TuneParam::set_r_end};
    for (size_t i = 0; i < 5 && first + i < fields.size(); ++i) {
        const std::string_view field = trimmed(fields[first + i]);
        if (field.empty()) continue;
        const std::optional<double> value = number(field);
        if (!value) return first + i;
        (param.*setters[i])(*value);
    }
    return 0;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> fields;
    for (size_t start = 0;;) {
        const size_t end = text.find(separator, start);
        fields.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) return fields;
        start = end + 1;
    }
}

}  // namespace

void record_engine_options(v1::Version& version, const std::string& command,
                           const std::vector<std::string>& args, const std::string& working_dir,
                           const std::string& label) {
    match::UciSpec engine;
    engine.command = command;
    engine.args = args;
    engine.working_dir = working_dir;
    std::string error;
    const auto options = match::read_engine_options(engine, 10'000, &error);
    if (!options) {
        std::cerr << "options not recorded: " << error
                  << " (the version plays, but its options cannot be tuned)\n";
        return;
    }
    for (const match::EngineOption& o : *options) {
        v1::EngineOption* option = version.add_options();
        option->set_name(o.name);
        option->set_type(o.type);
        option->set_default_value(o.default_value);
        option->set_min(o.min);
        option->set_max(o.max);
    }
    size_t spins = 0;
    for (const match::EngineOption& o : *options) spins += o.type == "spin";
    std::cerr << "recorded " << options->size() << " options of "
              << (label.empty() ? command : label) << " (" << spins << " spin options can tune)\n";
}

void record_archive_options(v1::Version& version, const std::string& archive,
                            const std::string& entry, const std::vector<std::string>& args) {
    if (!unsafe_relative_path(entry).empty()) return;
    std::string why;
    const std::string dir = match::make_scratch_dir("sparring-archive", &why);
    if (!dir.empty()) why = unpack_archive(archive, dir, ArchiveLimits{});
    if (!why.empty())
        std::cerr << "options not recorded: " << why
                  << " (the version plays, but its options cannot be tuned)\n";
    else
        record_engine_options(version, dir + "/" + entry, args, dir, entry + " in " + archive);
    if (dir.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

std::vector<std::vector<std::string>> engine_option_rows(const v1::Version& version) {
    std::vector<std::vector<std::string>> rows = {{"OPTION", "TYPE", "DEFAULT", "MIN", "MAX"}};
    for (const v1::EngineOption& o : version.options()) {
        const bool spin = o.type() == "spin";
        rows.push_back({o.name(), o.type(),
                        o.default_value().empty() ? "<empty>" : o.default_value(),
                        spin ? std::to_string(o.min()) : "", spin ? std::to_string(o.max()) : ""});
    }
    return rows;
}

v1::TuneParam parse_tune_param(std::string_view text) {
    const std::vector<std::string_view> fields = split(text, ':');
    v1::TuneParam param;
    param.set_name(std::string(trimmed(fields[0])));
    if (param.name().empty() || fields.size() > 6)
        throw UsageError("--param needs NAME[:START:MIN:MAX:C_END:R_END], got '" +
                         std::string(text) + "'");
    if (const size_t bad = set_numbers(fields, 1, param))
        throw UsageError("--param " + std::string(text) + ": '" + std::string(fields[bad]) +
                         "' is not a number");
    return param;
}

std::vector<v1::TuneParam> parse_params_file(std::string_view text, const std::string& file) {
    std::vector<v1::TuneParam> params;
    size_t line_number = 0;
    for (std::string_view line : split(text, '\n')) {
        ++line_number;
        const std::string_view content = trimmed(line);
        if (content.empty() || content.front() == '#') continue;
        const std::vector<std::string_view> fields = split(line, ',');
        // The column of field i's first character that is not a space, 1-based.
        const auto column = [&](size_t i) {
            size_t at = 1;
            for (size_t j = 0; j < i; ++j) at += fields[j].size() + 1;
            for (const char c : fields[i]) {
                if (c != ' ' && c != '\t') break;
                ++at;
            }
            return at;
        };
        const auto fail = [&](size_t i, const std::string& what) {
            throw UsageError(file + ":" + std::to_string(line_number) + ":" +
                             std::to_string(column(std::min(i, fields.size() - 1))) + ": " + what);
        };
        if (fields.size() != 7)
            fail(fields.size() < 7 ? fields.size() - 1 : 7,
                 "expected 7 fields (NAME, int|float, START, MIN, MAX, C_END, R_END), got " +
                     std::to_string(fields.size()));
        v1::TuneParam param;
        param.set_name(std::string(trimmed(fields[0])));
        if (param.name().empty()) fail(0, "a parameter needs a name");
        const std::string_view type = trimmed(fields[1]);
        if (type != "int" && type != "float")
            fail(1, "the type must be int or float, got '" + std::string(type) + "'");
        for (size_t i = 2; i < 7; ++i)
            if (trimmed(fields[i]).empty()) fail(i, "a number is missing");
        if (const size_t bad = set_numbers(fields, 2, param))
            fail(bad, "'" + std::string(trimmed(fields[bad])) + "' is not a number");
        params.push_back(std::move(param));
    }
    if (params.empty()) throw UsageError(file + ": no parameters");
    return params;
}

}  // namespace sparring::cli
