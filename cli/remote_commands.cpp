// The remote commands of the `sparring` CLI: versions, runs, show, stop, workers, export.
// Each talks to the coordinator's UserService; --json prints the coordinator's messages.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/engine_options.h"
#include "cli/run_display.h"
#include "cli/run_kinds.h"
#include "cli/training_remote.h"
#include "cli/tune.h"
#include "common/dates.h"
#include "common/opening.h"
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
    std::optional<std::string> set, uci, option, engine_file, engine_archive, entry, from_run,
        description;
    std::optional<int64_t> hash, bench, reference_nps;
    bool no_options = false;
    std::vector<std::string> arg;

    // Declares the flags on app.
    explicit VersionsFlags(CLI::App& app);
};

VersionsFlags::VersionsFlags(CLI::App& app) {
    preset_option =
        add_flag(app, "preset", preset, "NAME", "add: built-in parameter preset", "default");
    add_flag(app, "set", set, "NAME=V,...", "add: built-in parameters that differ from the preset");
    add_flag(app, "hash", hash, "MB",
             "add: hash table of the built-in engine (default: the engine's)");
    add_flag(app, "uci", uci, "COMMAND", "add: an external UCI engine instead of the built-in one");
    add_flag(app, "option", option, "NAME=V,...",
             "add: UCI options of the external or uploaded engine");
    add_flag(app, "engine-file", engine_file, "PATH",
             "add: upload this executable UCI engine to the coordinator");
    add_flag(app, "engine-archive", engine_archive, "FILE",
             "add: upload this .tar.gz of an engine and its files");
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

// The flags of `sparring runs`.
struct RunsFlags : CommonFlags {
    bool active = false;
    std::optional<std::string> owner, tc, result, since, until;
    int64_t limit = 0;
    int64_t offset = 0;

    // Declares the flags on app.
    explicit RunsFlags(CLI::App& app) {
        add_switch(app, "active", active, "only active runs");
        add_flag(app, "owner", owner, "USER",
                 "only runs this user submitted (the name of their token)");
        add_flag(app, "tc", tc, "TC", "only runs at this time control (10+0.1, nodes=1000)");
        add_flag(app, "result", result, "TEXT",
                 "only runs whose result starts with TEXT (H1, H0, stopped)");
        add_flag(app, "since", since, "DATE",
                 "only runs created on or after DATE (YYYY-MM-DD, UTC)");
        add_flag(app, "until", until, "DATE",
                 "only runs created on or before DATE (YYYY-MM-DD, UTC)");
        add_flag(app, "limit", limit, "N", "at most N runs (the coordinator sends 500 at most)",
                 "50");
        add_flag(app, "offset", offset, "N", "skip the newest N runs first (paging)", "0", 0,
                 std::numeric_limits<int32_t>::max());
        declare_common(app);
    }
};

// The flags of `sparring show`: --watch, --changes-offset.
struct ShowFlags : SwitchFlags {
    std::optional<int64_t> changes_offset;

    // Declares the flags on app.
    explicit ShowFlags(CLI::App& app)
        : SwitchFlags(app, "watch", "follow the run live until it ends") {
        in_range(add_flag(app, "changes-offset", changes_offset, "N",
                          "print only the run's changes: up to 100 before its newest N"),
                 0, 1'000'000'000);
    }
};

// The flags of `sparring stop`.
struct StopFlags : CommonFlags {
    // Declares the flags on app.
    explicit StopFlags(CLI::App& app) { declare_common(app); }
};

// The flags of `sparring notify`: --clear.
struct NotifyFlags : SwitchFlags {
    // Declares the flags on app.
    explicit NotifyFlags(CLI::App& app) : SwitchFlags(app, "clear", "no more notifications") {}
};

// The flags of `sparring workers`: --all.
struct WorkersFlags : SwitchFlags {
    // Declares the flags on app.
    explicit WorkersFlags(CLI::App& app)
        : SwitchFlags(app, "all", "include workers not seen lately") {}
};

// The flags of `sparring modify`.
struct ModifyFlags : CommonFlags {
    std::optional<int64_t> priority, throughput, games;
    std::optional<std::string> description, test, base, tc, book;

    // Declares the flags on app.
    explicit ModifyFlags(CLI::App& app) {
        in_range(add_flag(app, "priority", priority, "P",
                          "higher priorities are served first (a user: -1000..100; an admin: "
                          "up to 1000)"),
                 -1000, 1000);
        in_range(add_flag(app, "throughput", throughput, "T",
                          "share of the workers among equal priorities, percent (1..10000)"),
                 1, 10000);
        in_range(add_flag(app, "games", games, "N",
                          "games (regression: the maximum); not below those played or leased"),
                 2, 1'000'000'000);
        add_flag(app, "description", description, "TEXT",
                 "free text (also of a run that has ended)");
        add_flag(app, "test", test, "VERSION", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "base", base, "VERSION", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "tc", tc, "TC", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "book", book, "FILE", "cannot change: refused, submit --like RUN instead");
        declare_common(app);
    }
};

// The flags of `sparring purge`.
struct PurgeFlags : CommonFlags {
    std::optional<int64_t> worker;

    // Declares the flags on app.
    explicit PurgeFlags(CLI::App& app) {
        in_range(add_flag(app, "worker", worker, "W",
                          "the worker whose games to remove (see `sparring workers --all`)"),
                 1, std::numeric_limits<int64_t>::max());
        declare_common(app);
    }
};

// Returns a run id from the positional arguments; throws UsageError when it is not one.
int64_t run_id_argument(const std::vector<std::string>& arguments) {
    if (arguments.size() != 1) throw UsageError("give one run id (see `sparring runs`)");
    const std::string& text = arguments[0];
    int64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id < 1)
        throw UsageError("run id must be a positive number, got '" + text + "'");
    return id;
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

// Uploads the engine file of `versions add --engine-file/--engine-archive` and describes it
// in the version.
void add_uploaded_engine(const VersionsFlags& args, RemoteClient& client, v1::Version& v) {
    if (args.engine_file.has_value() == args.engine_archive.has_value())
        throw UsageError("give one of --engine-file and --engine-archive");
    if (args.uci || given(args.preset_option) || args.set || args.hash || args.from_run)
        throw UsageError(
            "an uploaded engine excludes --uci, --preset, --set, --hash and --from-run");
    const bool archive = args.engine_archive.has_value();
    if (archive != args.entry.has_value())
        throw UsageError(archive ? "--engine-archive needs --entry: the executable inside it"
                                 : "--entry needs --engine-archive");
    const std::string path = archive ? *args.engine_archive : *args.engine_file;
    if (archive && !args.no_options)
        record_archive_options(v, path, *args.entry, args.arg);
    else if (!args.no_options)
        record_engine_options(v, path, args.arg);
    std::cerr << "uploading " << path << "...\n";
    const v1::UploadEngineResponse uploaded = client.upload_engine(path, archive);
    std::cerr << (uploaded.duplicate() ? "already stored" : "stored") << " as sha256 "
              << uploaded.sha256() << " (" << uploaded.size() << " bytes)\n";
    v1::UploadedEngine& u = *v.mutable_uploaded();
    u.set_sha256(uploaded.sha256());
    if (archive) u.set_entry(*args.entry);
    for (const std::string& arg : args.arg) u.add_args(arg);
    for (const auto& [name, value] : parse_options(args.option.value_or("")))
        (*u.mutable_options())[name] = value;
    v.set_bench(uint64_t(args.bench.value_or(0)));
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
    if (!args.engine_file && !args.engine_archive && (args.entry || !args.arg.empty()))
        throw UsageError("--entry and --arg need --engine-file or --engine-archive");
    if (args.engine_file || args.engine_archive) {
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
    if (args.json)
        std::cout << to_json(added) << "\n";
    else
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
        if (args.json) {
            std::cout << to_json(v) << "\n";
            return 0;
        }
        std::vector<std::vector<std::string>> rows = {{"name:", v.name()},
                                                      {"id:", std::to_string(v.id())},
                                                      {"engine:", engine_text(v)},
                                                      {"bench:", std::to_string(v.bench())},
                                                      {"created:", utc(v.created_unix_ms())}};
        if (v.has_uploaded()) {
            rows.push_back({"sha256:", v.uploaded().sha256()});
            rows.push_back({"size:", std::to_string(v.uploaded().size()) + " bytes" +
                                         (v.uploaded().archive() ? " (.tar.gz archive)" : "")});
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
    if (args.json) {
        std::cout << to_json(response) << "\n";
        return 0;
    }
    std::vector<std::vector<std::string>> rows = {{"ID", "NAME", "BENCH", "ENGINE"}};
    for (const v1::Version& v : response.versions())
        rows.push_back(
            {std::to_string(v.id()), v.name(), std::to_string(v.bench()), engine_text(v)});
    print_table(rows);
    return 0;
}

// Runs `runs`: a table of runs, newest first.
// Returns a run's result with its stages: "H1 accepted -> run 7" for a run whose follow-up
// started, "run 3 -> H0 accepted" for the follow-up itself.
std::string stages(const v1::RunStatus& r) {
    std::string text = r.result();
    if (r.follows_run_id() > 0)
        text =
            "run " + std::to_string(r.follows_run_id()) + " -> " + (text.empty() ? "active" : text);
    if (r.follow_up_run_id() > 0) text += " -> run " + std::to_string(r.follow_up_run_id());
    return text;
}

// Returns the milliseconds since the Unix epoch of the UTC date a flag gives, plus days; throws
// UsageError naming the flag for anything but YYYY-MM-DD.
int64_t date_ms(const std::string& text, const char* flag, int days) {
    const std::optional<int64_t> ms = utc_day_ms(text);
    if (!ms)
        throw UsageError("--" + std::string(flag) + " takes a date as YYYY-MM-DD (UTC), not '" +
                         text + "'");
    return *ms + int64_t(days) * 86'400'000;
}

int runs(const RunsFlags& args) {
    if (!args.arguments.empty()) throw UsageError("runs takes no arguments");
    v1::ListRunsRequest request;
    if (args.active) request.add_states(v1::RUN_STATE_ACTIVE);
    request.set_limit(uint32_t(std::clamp<int64_t>(args.limit, 1, 100000)));
    request.set_offset(uint32_t(args.offset));
    if (args.owner) request.set_owner(*args.owner);
    if (args.tc) request.set_time_control(*args.tc);
    if (args.result) request.set_result(*args.result);
    if (args.since) request.set_created_from_unix_ms(date_ms(*args.since, "since", 0));
    // The whole day the flag names.
    if (args.until) request.set_created_until_unix_ms(date_ms(*args.until, "until", 1));
    RemoteClient client(args.remote);
    v1::ListRunsResponse response;
    client.call(&v1::UserService::Stub::ListRuns, request, &response);
    if (args.json) {
        std::cout << to_json(response) << "\n";
        return 0;
    }
    std::vector<std::vector<std::string>> rows = {
        {"ID", "STATE", "KIND", "TEST", "BASE", "TC", "GAMES", "ELO", "LLR", "OWNER", "RESULT"}};
    for (const v1::RunStatus& r : response.runs()) {
        const CliRunKind& kind = cli_run_kind(r.spec().kind());
        RunsCells cells = kind.runs_cells(r);
        rows.push_back({std::to_string(r.id()), state_name(r.state()), std::string(kind.name),
                        r.spec().test_version(), r.spec().base_version(),
                        std::move(cells.time_control),
                        std::to_string(r.games()) + "/" + std::to_string(r.spec().games()),
                        std::move(cells.elo), std::move(cells.llr),
                        r.spec().owner().empty() ? "-" : r.spec().owner(), stages(r)});
    }
    print_table(rows);
    const uint64_t shown = uint64_t(args.offset) + uint64_t(response.runs_size());
    if (response.total() > shown && response.runs_size() > 0)
        std::cout << "runs " << args.offset + 1 << "-" << shown << " of " << response.total()
                  << "; next page: sparring runs --offset " << shown
                  << " (with the same filters)\n";
    // A warning's first sentence under the table; `sparring show RUN` prints the whole.
    for (const v1::RunStatus& r : response.runs())
        for (const std::string& warning : r.warnings())
            std::cout << "warning: run " << r.id() << ": " << first_sentence(warning)
                      << " (sparring show " << r.id() << ")\n";
    return 0;
}

// Runs `show RUN`, or follows it with --watch.
int show(const ShowFlags& args) {
    v1::GetRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    if (args.on) {  // --watch
        if (args.json) throw UsageError("--watch does not go with --json");
        watch_run(request.run_id(), client);
        return 0;
    }
    if (args.changes_offset) request.set_changes_offset(uint32_t(*args.changes_offset));
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::GetRun, request, &run);
    if (args.json) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    if (args.changes_offset)
        print_run_changes(run, request.changes_offset());
    else
        cli_run_kind(run.spec().kind()).show(run, client);
    return 0;
}

// Runs `stop RUN`.
int stop(const StopFlags& args) {
    v1::StopRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::StopRun, request, &run);
    if (args.json)
        std::cout << to_json(run) << "\n";
    else
        std::cout << "run " << run.id() << " stopped after " << run.games() << " games\n";
    return 0;
}

// Runs `modify RUN --priority P --throughput T --games N --description D`.
int modify(const ModifyFlags& args) {
    v1::ModifyRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    if (args.priority) request.set_priority(int32_t(*args.priority));
    if (args.throughput) request.set_throughput(uint32_t(*args.throughput));
    if (args.games) request.set_games(uint64_t(*args.games));
    if (args.description) request.set_description(*args.description);
    // What cannot change goes to the coordinator all the same, which says why and what to do.
    if (args.test) request.set_test_version(*args.test);
    if (args.base) request.set_base_version(*args.base);
    if (args.tc) request.mutable_time_control();
    if (args.book) request.mutable_book()->set_source(*args.book);
    if (!request.has_priority() && !request.has_throughput() && !request.has_games() &&
        !request.has_description() && !args.test && !args.base && !args.tc && !args.book)
        throw UsageError(
            "nothing to change: give --priority, --throughput, --games or --description");
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::ModifyRun, request, &run);
    if (args.json) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    std::cout << "run " << run.id() << ": priority " << run.spec().priority() << ", throughput "
              << run.spec().throughput() << "%, games " << run.games() << "/" << run.spec().games()
              << " (" << state_text(run, ", ") << ")\n";
    return 0;
}

// Runs `notify [URL | --clear]`.
int notify(const NotifyFlags& args) {
    if (args.arguments.size() > 1) throw UsageError("notify takes one URL at most");
    v1::SetNotifyUrlRequest request;
    if (!args.arguments.empty()) request.set_url(args.arguments[0]);
    if (args.on) {  // --clear
        if (request.has_url()) throw UsageError("give a URL or --clear, not both");
        request.set_url("");
    }
    RemoteClient client(args.remote);
    v1::SetNotifyUrlResponse response;
    client.call(&v1::UserService::Stub::SetNotifyUrl, request, &response);
    if (args.json) {
        std::cout << to_json(response) << "\n";
        return 0;
    }
    std::cout << printable(response.user()) << ": "
              << (response.url().empty()
                      ? "no notifications"
                      : "each run's end is posted to " + printable(response.url()))
              << "\n";
    return 0;
}

// Runs `workers`.
int workers(const WorkersFlags& args) {
    if (!args.arguments.empty()) throw UsageError("workers takes no arguments");
    RemoteClient client(args.remote);
    v1::ListWorkersRequest request;
    request.set_include_inactive(args.on);  // --all
    v1::ListWorkersResponse response;
    client.call(&v1::UserService::Stub::ListWorkers, request, &response);
    if (args.json) {
        std::cout << to_json(response) << "\n";
        return 0;
    }
    std::vector<std::vector<std::string>> rows = {{"ID", "NAME", "STATE", "CONCURRENCY", "CORES",
                                                   "MEMORY", "RUNS", "GAMES", "LAST SEEN",
                                                   "FIT (RUN)"}};
    for (const v1::WorkerStatus& w : response.workers()) {
        std::string runs;
        for (int64_t id : w.run_ids()) runs += (runs.empty() ? "" : ",") + std::to_string(id);
        rows.push_back({std::to_string(w.id()), w.name(), w.active() ? "active" : "gone",
                        std::to_string(w.concurrency()), std::to_string(w.cores()),
                        std::to_string(w.memory_mb()) + " MiB", runs.empty() ? "-" : runs,
                        std::to_string(w.games()), utc(w.last_seen_unix_ms()),
                        w.has_fit()
                            ? fit_text(w.fit()) + " (" + std::to_string(w.fit().run_id()) + ")"
                            : "-"});
    }
    print_table(rows);
    // Their speeds with each engine measured for scaled clocks, newest first.
    std::vector<std::vector<std::string>> speeds = {
        {"WORKER", "VERSION", "NPS", "GAMES AT ONCE", "MEASURED"}};
    for (const v1::WorkerStatus& w : response.workers())
        for (const v1::WorkerSpeed& speed : w.speeds())
            speeds.push_back({w.name() + " (" + std::to_string(w.id()) + ")", speed.version(),
                              std::to_string(speed.nps()), std::to_string(speed.games_at_once()),
                              utc(speed.measured_unix_ms())});
    if (speeds.size() > 1) {
        std::cout << "\nspeeds (scaled clocks):\n";
        print_table(speeds);
    }
    return 0;
}

// Runs `purge RUN --worker W`.
int purge(const PurgeFlags& args) {
    v1::PurgeWorkerRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    if (!args.worker) throw UsageError("--worker is required: the worker to purge");
    request.set_worker_id(*args.worker);
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::PurgeWorker, request, &run);
    if (args.json) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    for (const v1::Purge& p : run.purges())
        if (p.worker_id() == request.worker_id())
            std::cout << "run " << run.id() << ": " << p.games() << " games of worker "
                      << p.worker_id() << " (" << p.worker_name() << ") purged; the run counts "
                      << run.games() << " games now (" << state_text(run, ", ") << ")\n";
    return 0;
}

// Runs `export RUN`: every recorded game as PGN, page by page; `export positions` writes a
// generation run's labelled positions instead.
int export_games(const ExportFlags& args) {
    if (!args.arguments.empty() && args.arguments[0] == "positions") return export_positions(args);
    for (const CLI::Option* option : {args.run_option, args.format_option})
        if (given(option)) throw UsageError(option->get_name() + " goes with export positions");
    v1::ExportGamesRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    std::ofstream file;
    if (args.out) {
        file.open(*args.out, std::ios::binary);
        if (!file) throw std::runtime_error("cannot write " + *args.out);
    }
    std::ostream& out = args.out ? file : std::cout;
    uint64_t games = 0;
    for (;;) {
        v1::ExportGamesResponse page;
        client.call(&v1::UserService::Stub::ExportGames, request, &page);
        out << page.pgn();
        games += page.games();
        if (page.done() || page.games() == 0) break;
        request.set_start_game(page.next_start_game());
    }
    if (!out) throw std::runtime_error("writing the PGN failed");
    if (args.out) std::cerr << games << " games written to " << *args.out << "\n";
    return 0;
}

}  // namespace

Command versions_command() {
    return {"versions",
            "add, list or show engine versions and their engines' options on the coordinator",
            "add NAME [--preset P] [--set N=V,...] | add NAME --from-run RUN | "
            "add NAME --engine-file PATH [--arg A]... | list | show NAME | options NAME",
            declare_flags<VersionsFlags, versions>};
}

Command runs_command() {
    return {"runs", "list the coordinator's runs: state, versions, games, Elo, LLR", "",
            declare_flags<RunsFlags, runs>};
}

Command show_command() {
    return {"show", "show a run: results, pentanomial counts, Elo, SPRT bounds, tuned values",
            "RUN [--watch]", declare_flags<ShowFlags, show>};
}

Command stop_command() {
    return {"stop", "stop an active run (yours; an admin token: anybody's); its workers stop",
            "RUN", declare_flags<StopFlags, stop>};
}

Command notify_command() {
    return {"notify",
            "post a JSON notice of each of your runs' ends to URL (its host must be on the "
            "coordinator's --notify-allow list); without URL: show where they go",
            "[URL | --clear]", declare_flags<NotifyFlags, notify>};
}

Command modify_command() {
    return {"modify",
            "change a run after submit (yours; an admin token: anybody's); the run's history "
            "shows who changed what",
            "RUN [--priority P] [--throughput T] [--games N] [--description TEXT]",
            declare_flags<ModifyFlags, modify>};
}

Command workers_command() {
    return {"workers", "list the workers of the coordinator", "",
            declare_flags<WorkersFlags, workers>};
}

Command purge_command() {
    return {"purge",
            "remove a worker's games from a run's totals and bar it from the run; the "
            "statistics are recomputed and others play the pairs again",
            "RUN --worker W", declare_flags<PurgeFlags, purge>};
}

Command export_command() {
    return {"export", "export a run's games as PGN, or a generation run's labelled positions",
            "RUN [--out FILE] | positions --run RUN --out FILE [--format F]",
            declare_flags<ExportFlags, export_games>};
}

}  // namespace sparring::cli
