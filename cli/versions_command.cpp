// `sparring versions`: add an engine version to the coordinator (built-in with a preset and
// overrides, an external UCI command, an uploaded engine, or a tuning or training run's result),
// list them, show one, or show its engine's options.
#include <CLI/CLI.hpp>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/engine_options.h"
#include "cli/run_display.h"
#include "cli/version_builds.h"
#include "common/engine_builds.h"
#include "common/printable.h"
#include "engine/bench.h"
#include "engine/params.h"
#include "match/bench_cache.h"

namespace sparring::cli {

namespace {

// The flags of `sparring versions`, and its arguments.
struct VersionsFlags : CommonFlags {
    std::string preset;
    CLI::Option* preset_option = nullptr;
    std::optional<std::string> set, uci, option, entry, from_run, description;
    std::vector<std::string> engine_file, engine_archive;  // PATH[:LEVEL], one a build
    std::optional<int64_t> hash, bench, reference_nps;
    bool no_options = false;
    std::vector<std::string> arg;

    // Declares the flags on app.
    explicit VersionsFlags(CLI::App& app);
};

VersionsFlags::VersionsFlags(CLI::App& app) {
    preset_option =
        add_flag(app, "preset", preset, "NAME", "add: built-in parameter preset", "default");
    add_list(app, "set", set, "NAME=V,...", "add: built-in parameters that differ from the preset");
    add_flag(app, "hash", hash, "MB",
             "add: hash table of the built-in engine (default: the engine's)");
    add_flag(app, "uci", uci, "COMMAND", "add: an external UCI engine instead of the built-in one");
    add_list(app, "option", option, "NAME=V,...",
             "add: UCI options of the external or uploaded engine");
    add_flag(app, "engine-file", engine_file, "PATH[:LEVEL]",
             "add: upload this executable UCI engine to the coordinator; repeat with :LEVEL "
             "(x86-64-v4, x86-64-v3, x86-64-v2, x86-64) for a build of each instruction-set "
             "level, none for a portable one");
    add_flag(app, "engine-archive", engine_archive, "FILE[:LEVEL]",
             "add: upload this .tar.gz of an engine and its files (repeatable as --engine-file)");
    add_switch(app, "no-options", no_options,
               "add: do not start the --uci, --engine-file or --engine-archive engine here to "
               "read its options (they are then not recorded and cannot tune)");
    add_flag(app, "entry", entry, "PATH", "add: the executable's path inside --engine-archive");
    add_flag(app, "arg", arg, "ARG",
             "add: an argument the uploaded engine starts with (repeatable)");
    add_flag(app, "bench", bench, "N",
             "add: bench signature (built-in: computed here when not given)");
    add_flag(app, "from-run", from_run, "RUN",
             "add: the current values of a tuning run, or a training run's result, on its base "
             "version");
    add_flag(app, "description", description, "TEXT", "add: free text");
    in_range(add_flag(app, "reference-nps", reference_nps, "N",
                      "add: the speed its clock runs are defined for (nodes per second of one "
                      "game's engine as workers measure it); workers scale clocks by it"),
             1000, 1'000'000'000'000);
    declare_common(app);
}

// Parses "Name=V,Name=V" into a map of integers.
std::map<std::string, int> parse_overrides(const std::string& text) {
    std::map<std::string, int> values;
    std::istringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--set needs NAME=INTEGER items, got '" + item + "'");
        int value = 0;
        const char* end = item.data() + item.size();
        const auto parsed = std::from_chars(item.data() + eq + 1, end, value);
        if (parsed.ec != std::errc() || parsed.ptr != end || eq + 1 == item.size())
            throw UsageError("--set needs NAME=INTEGER items, got '" + item + "'");
        values[item.substr(0, eq)] = value;
    }
    return values;
}

// Parses "name=value,name=value" into a map of strings.
std::map<std::string, std::string> parse_options(const std::string& text) {
    std::map<std::string, std::string> values;
    std::istringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--option needs NAME=VALUE items, got '" + item + "'");
        values[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return values;
}

// Returns the bench signature of a built-in version, computed on this machine.
uint64_t local_bench(const std::string& preset, const std::map<std::string, int>& overrides) {
    std::optional<ParamSet> params = ParamSet::preset(preset);
    if (!params) throw UsageError("unknown preset '" + preset + "'");
    for (const auto& [name, value] : overrides) {
        std::string error;
        if (!params->set(name, value, &error)) throw UsageError("--set " + name + ": " + error);
    }
    const std::optional<std::string> entry = bench_cache_entry(*params);
    if (!entry || !std::filesystem::exists(*entry))
        std::cerr << "computing the bench signature (depth " << BENCH_DEFAULT_DEPTH << ")...\n";
    return awaited_bench(*params);
}

// Returns a version's engine in one line.
std::string engine_text(const v1::Version& v) {
    if (v.has_uploaded()) {
        const v1::UploadedEngine& u = v.uploaded();
        std::string text = "uploaded " + u.sha256().substr(0, 12);
        if (u.archive()) text += " " + u.entry();
        if (u.builds_size() > 0 || !u.level().empty()) {
            text += " [" + build_level_name(u.level());
            for (const v1::EngineBuild& b : u.builds()) text += ", " + build_level_name(b.level());
            text += "]";
        }
        for (const std::string& arg : u.args()) text += " " + arg;
        for (const auto& [name, value] : u.options()) text += " " + name + "=" + value;
        return text;
    }
    if (v.has_uci()) {
        std::string text = "uci " + v.uci().command();
        for (const auto& [name, value] : v.uci().options()) text += " " + name + "=" + value;
        return text;
    }
    std::string text = "builtin " + v.builtin().preset();
    for (const auto& [name, value] : v.builtin().overrides())
        text += " " + name + "=" + std::to_string(value);
    if (v.builtin().hash_mb()) text += " hash=" + std::to_string(v.builtin().hash_mb());
    return text;
}

// Uploads the engine files of `versions add --engine-file/--engine-archive` (one build each,
// the first the version's file, the others its builds for other levels) and describes them in
// the version. Several builds, or one with a level, are each verified here by the same bench
// signature where this machine runs them.
void add_uploaded_engine(const VersionsFlags& args, RemoteClient& client, v1::Version& v) {
    if (args.uci || given(args.preset_option) || args.set || args.hash || args.from_run)
        throw UsageError(
            "an uploaded engine excludes --uci, --preset, --set, --hash and --from-run");
    std::vector<BuildArg> builds;
    for (const std::string& text : args.engine_file) builds.push_back(parse_build_arg(text, false));
    for (const std::string& text : args.engine_archive)
        builds.push_back(parse_build_arg(text, true));
    const bool archive = !args.engine_archive.empty();
    if (archive != args.entry.has_value())
        throw UsageError(archive ? "--engine-archive needs --entry: the executable inside it"
                                 : "--entry needs --engine-archive");
    for (size_t i = 0; i < builds.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (builds[i].level == builds[j].level)
                throw UsageError("two builds for " + build_level_name(builds[i].level) + " (" +
                                 builds[j].path + ", " + builds[i].path +
                                 "): give each level one build");
    // The options from the build this machine most likely runs: the lowest level's.
    const BuildArg& first = *lowest_level_first(builds).front();
    if (first.archive && !args.no_options)
        record_archive_options(v, first.path, *args.entry, args.arg);
    else if (!args.no_options)
        record_engine_options(v, first.path, args.arg);
    std::optional<uint64_t> bench;
    if (args.bench) bench = uint64_t(*args.bench);
    if (builds.size() > 1 || !builds.front().level.empty())
        bench = verify_build_benches(builds, args.entry.value_or(""), args.arg, bench);
    v1::UploadedEngine& u = *v.mutable_uploaded();
    for (const BuildArg& build : builds) {
        std::cerr << "uploading " << build.path << "...\n";
        const v1::UploadEngineResponse uploaded = client.upload_engine(build.path, build.archive);
        std::cerr << (uploaded.duplicate() ? "already stored" : "stored") << " as sha256 "
                  << uploaded.sha256() << " (" << uploaded.size() << " bytes)\n";
        if (&build == &builds.front()) {
            u.set_sha256(uploaded.sha256());
            u.set_level(build.level);
            if (build.archive) u.set_entry(*args.entry);
            continue;
        }
        v1::EngineBuild* b = u.add_builds();
        b->set_level(build.level);
        b->set_sha256(uploaded.sha256());
        if (build.archive) b->set_entry(*args.entry);
    }
    for (const std::string& arg : args.arg) u.add_args(arg);
    for (const auto& [name, value] : parse_options(args.option.value_or("")))
        (*u.mutable_options())[name] = value;
    v.set_bench(bench.value_or(0));
}

int add_version(const VersionsFlags& args, RemoteClient& client,
                const v1::AddVersionRequest& request);

// Runs `versions add NAME`.
int versions_add(const VersionsFlags& args, RemoteClient& client) {
    if (args.arguments.size() != 2) throw UsageError("versions add needs a NAME");
    v1::AddVersionRequest request;
    v1::Version& v = *request.mutable_version();
    v.set_name(valid_utf8(args.arguments[1]));
    v.set_description(valid_utf8(args.description.value_or("")));
    if (args.reference_nps) v.set_reference_nps(uint64_t(*args.reference_nps));
    const bool uploaded = !args.engine_file.empty() || !args.engine_archive.empty();
    if (!uploaded && (args.entry || !args.arg.empty()))
        throw UsageError("--entry and --arg need --engine-file or --engine-archive");
    if (uploaded) {
        add_uploaded_engine(args, client, v);
    } else if (args.from_run) {
        if (args.uci || given(args.preset_option) || args.set || args.bench || args.option)
            throw UsageError("--from-run excludes --uci, --preset, --set, --option and --bench");
        const std::string& run = *args.from_run;
        int64_t run_id = 0;
        const auto [end, ec] = std::from_chars(run.data(), run.data() + run.size(), run_id);
        if (ec != std::errc() || end != run.data() + run.size() || run_id < 1)
            throw UsageError("--from-run needs a run id, got '" + run + "'");
        // The coordinator makes the version: the run's base version with its result.
        request.set_from_run(run_id);
        const int64_t hash = args.hash.value_or(0);
        if (hash < 0 || hash > 65536) throw UsageError("--hash must be in 0..65536");
        if (hash > 0) v.mutable_builtin()->set_hash_mb(uint32_t(hash));
    } else if (args.uci) {
        if (given(args.preset_option) || args.set || args.hash)
            throw UsageError("--uci excludes --preset, --set and --hash");
        v.mutable_uci()->set_command(*args.uci);
        for (const auto& [name, value] : parse_options(args.option.value_or("")))
            (*v.mutable_uci()->mutable_options())[name] = value;
        if (!args.no_options) record_engine_options(v, v.uci().command(), {});
        v.set_bench(uint64_t(args.bench.value_or(0)));
    } else {
        if (args.option) throw UsageError("--option needs --uci");
        const std::string& preset = args.preset;
        const auto overrides = parse_overrides(args.set.value_or(""));
        v.mutable_builtin()->set_preset(preset);
        for (const auto& [name, value] : overrides)
            (*v.mutable_builtin()->mutable_overrides())[name] = value;
        const int64_t hash = args.hash.value_or(0);
        if (hash < 0 || hash > 65536) throw UsageError("--hash must be in 0..65536");
        v.mutable_builtin()->set_hash_mb(uint32_t(hash));
        v.set_bench(args.bench ? uint64_t(*args.bench) : local_bench(preset, overrides));
    }
    return add_version(args, client, request);
}

// Adds the version and says so.
int add_version(const VersionsFlags& args, RemoteClient& client,
                const v1::AddVersionRequest& request) {
    v1::Version added;
    client.call(&v1::UserService::Stub::AddVersion, request, &added);
    if (!print_if_json(args.json, added))
        std::cout << "version " << added.name() << " added (id " << added.id() << ", bench "
                  << added.bench() << ")\n";
    return 0;
}

// Runs `versions list|show|add`.
int versions(const VersionsFlags& args) {
    const auto& pos = args.arguments;
    if (pos.empty()) throw UsageError("versions needs add, list, show or options");
    RemoteClient client(args.remote);
    if (pos[0] == "add") return versions_add(args, client);
    if (pos[0] == "options") {
        if (pos.size() != 2) throw UsageError("versions options needs a NAME");
        v1::GetVersionRequest request;
        request.set_name(valid_utf8(pos[1]));
        v1::Version v;
        client.call(&v1::UserService::Stub::GetVersion, request, &v);
        if (args.json) {
            v1::Version options;
            *options.mutable_options() = v.options();
            std::cout << to_json(options) << "\n";
            return 0;
        }
        if (v.options_size() == 0)
            throw std::runtime_error("version '" + v.name() +
                                     "' records no options of its engine (added before they were "
                                     "read, or from an archive): add it again to tune them");
        print_table(engine_option_rows(v));
        return 0;
    }
    if (pos[0] == "show") {
        if (pos.size() != 2) throw UsageError("versions show needs a NAME");
        v1::GetVersionRequest request;
        request.set_name(valid_utf8(pos[1]));
        v1::Version v;
        client.call(&v1::UserService::Stub::GetVersion, request, &v);
        if (print_if_json(args.json, v)) return 0;
        std::vector<std::vector<std::string>> rows = {{"name:", v.name()},
                                                      {"id:", std::to_string(v.id())},
                                                      {"engine:", engine_text(v)},
                                                      {"bench:", std::to_string(v.bench())},
                                                      {"created:", utc(v.created_unix_ms())}};
        if (v.has_uploaded() && v.uploaded().builds_size() == 0 && v.uploaded().level().empty()) {
            rows.push_back({"sha256:", v.uploaded().sha256()});
            rows.push_back({"size:", std::to_string(v.uploaded().size()) + " bytes" +
                                         (v.uploaded().archive() ? " (.tar.gz archive)" : "")});
        } else if (v.has_uploaded()) {
            // One line a build: its level, file and size.
            bool first = true;
            const auto build_row = [&rows, &first](const std::string& level,
                                                   const std::string& sha256, uint64_t size,
                                                   bool archive) {
                rows.push_back({std::exchange(first, false) ? "builds:" : "",
                                build_level_name(level) + "  " + sha256 + "  " +
                                    std::to_string(size) + " bytes" +
                                    (archive ? " (.tar.gz archive)" : "")});
            };
            const v1::UploadedEngine& u = v.uploaded();
            build_row(u.level(), u.sha256(), u.size(), u.archive());
            for (const v1::EngineBuild& b : u.builds())
                build_row(b.level(), b.sha256(), b.size(), b.archive());
        }
        if (!v.description().empty()) rows.push_back({"description:", v.description()});
        if (v.reference_nps())
            rows.push_back({"reference:", std::to_string(v.reference_nps()) +
                                              " nodes per second (its clock runs are scaled)"});
        if (v.has_builtin()) rows.push_back({"parameters:", v.builtin().params_json()});
        print_table(rows);
        return 0;
    }
    if (pos[0] != "list") throw UsageError("unknown versions action '" + pos[0] + "'");
    v1::ListVersionsResponse response;
    client.call(&v1::UserService::Stub::ListVersions, v1::ListVersionsRequest(), &response);
    if (print_if_json(args.json, response)) return 0;
    std::vector<std::vector<std::string>> rows = {{"ID", "NAME", "BENCH", "ENGINE"}};
    for (const v1::Version& v : response.versions())
        rows.push_back(
            {std::to_string(v.id()), v.name(), std::to_string(v.bench()), engine_text(v)});
    print_table(rows);
    return 0;
}

}  // namespace

Command versions_command() {
    return {"versions",
            "add, list or show engine versions and their engines' options on the coordinator",
            "add NAME [--preset P] [--set N=V,...] | add NAME --from-run RUN | "
            "add NAME --engine-file PATH[:LEVEL]... [--arg A]... | list | show NAME | options NAME",
            declare_flags<VersionsFlags, versions>};
}

}  // namespace sparring::cli
