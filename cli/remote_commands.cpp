// The remote commands of the `sparring` CLI: versions, runs, show, stop, workers, export.
// Each talks to the coordinator's UserService; --json prints the coordinator's messages.
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
#include "common/printable.h"
#include "engine/bench.h"
#include "engine/params.h"
#include "match/bench_cache.h"

namespace sparring::cli {

namespace {

// Returns a run id from a positional argument; throws UsageError when it is not one.
int64_t run_id_argument(const Flags& args) {
    if (args.positional().size() != 1) throw UsageError("give one run id (see `sparring runs`)");
    const std::string& text = args.positional()[0];
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
    return builtin_bench(*params).nodes;
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
void add_uploaded_engine(const Flags& args, RemoteClient& client, v1::Version& v) {
    if (args.has("engine-file") == args.has("engine-archive"))
        throw UsageError("give one of --engine-file and --engine-archive");
    if (args.has("uci") || args.has("preset") || args.has("set") || args.has("hash") ||
        args.has("from-run"))
        throw UsageError(
            "an uploaded engine excludes --uci, --preset, --set, --hash and --from-run");
    const bool archive = args.has("engine-archive");
    if (archive != args.has("entry"))
        throw UsageError(archive ? "--engine-archive needs --entry: the executable inside it"
                                 : "--entry needs --engine-archive");
    const std::string path = args.get_string(archive ? "engine-archive" : "engine-file");
    if (archive && !args.has("no-options"))
        std::cerr << "options not recorded: the options of an archive's engine are not read yet "
                     "(the version plays, but its options cannot be tuned)\n";
    else if (!args.has("no-options"))
        record_engine_options(v, path, args.get_all("arg"));
    std::cerr << "uploading " << path << "...\n";
    const v1::UploadEngineResponse uploaded = client.upload_engine(path, archive);
    std::cerr << (uploaded.duplicate() ? "already stored" : "stored") << " as sha256 "
              << uploaded.sha256() << " (" << uploaded.size() << " bytes)\n";
    v1::UploadedEngine& u = *v.mutable_uploaded();
    u.set_sha256(uploaded.sha256());
    if (archive) u.set_entry(args.get_string("entry"));
    for (const std::string& arg : args.get_all("arg")) u.add_args(arg);
    for (const auto& [name, value] : parse_options(args.get_string("option", "")))
        (*u.mutable_options())[name] = value;
    v.set_bench(uint64_t(args.get_int("bench", 0)));
}

int add_version(const Flags& args, RemoteClient& client, const v1::AddVersionRequest& request);

// Runs `versions add NAME`.
int versions_add(const Flags& args, RemoteClient& client) {
    if (args.positional().size() != 2) throw UsageError("versions add needs a NAME");
    v1::AddVersionRequest request;
    v1::Version& v = *request.mutable_version();
    v.set_name(valid_utf8(args.positional()[1]));
    v.set_description(valid_utf8(args.get_string("description", "")));
    if (args.has("reference-nps"))
        v.set_reference_nps(uint64_t(args.get_int_in("reference-nps", 1000, 1'000'000'000'000)));
    if (!args.has("engine-file") && !args.has("engine-archive") &&
        (args.has("entry") || !args.get_all("arg").empty()))
        throw UsageError("--entry and --arg need --engine-file or --engine-archive");
    if (args.has("engine-file") || args.has("engine-archive")) {
        add_uploaded_engine(args, client, v);
    } else if (args.has("from-run")) {
        if (args.has("uci") || args.has("preset") || args.has("set") || args.has("bench"))
            throw UsageError("--from-run excludes --uci, --preset, --set and --bench");
        const std::string run = args.get_string("from-run");
        int64_t run_id = 0;
        const auto [end, ec] = std::from_chars(run.data(), run.data() + run.size(), run_id);
        if (ec != std::errc() || end != run.data() + run.size() || run_id < 1)
            throw UsageError("--from-run needs a run id, got '" + run + "'");
        v1::GetRunRequest run_request;
        run_request.set_run_id(run_id);
        v1::RunStatus source;
        client.call(&v1::UserService::Stub::GetRun, run_request, &source);
        const CliRunKind& kind = cli_run_kind(source.spec().kind());
        if (!kind.version_of)
            throw std::runtime_error("run " + std::to_string(run_id) + " is not a tuning run");
        v1::GetVersionRequest base_request;
        base_request.set_name(source.spec().base_version());
        v1::Version base;
        client.call(&v1::UserService::Stub::GetVersion, base_request, &base);
        if (source.spec().kind() == v1::RUN_KIND_TUNE && !base.has_builtin()) {
            // A tuning run of an engine's options: the same engine with the tuned values.
            if (args.has("hash")) throw UsageError("--hash is the built-in engine's");
            tuned_engine_version(source, base, v);
            if (!args.has("description"))
                v.set_description(std::string(kind.version_description) + std::to_string(run_id));
            return add_version(args, client, request);
        }
        const auto [preset, overrides] = kind.version_of(source, client);
        v.mutable_builtin()->set_preset(preset);
        v.mutable_builtin()->mutable_overrides()->insert(overrides.begin(), overrides.end());
        const int64_t hash = args.get_int("hash", 0);
        if (hash < 0 || hash > 65536) throw UsageError("--hash must be in 0..65536");
        v.mutable_builtin()->set_hash_mb(uint32_t(hash));
        v.set_bench(local_bench(preset, overrides));
        if (!args.has("description"))
            v.set_description(std::string(kind.version_description) + std::to_string(run_id));
    } else if (args.has("uci")) {
        if (args.has("preset") || args.has("set") || args.has("hash"))
            throw UsageError("--uci excludes --preset, --set and --hash");
        v.mutable_uci()->set_command(args.get_string("uci"));
        for (const auto& [name, value] : parse_options(args.get_string("option", "")))
            (*v.mutable_uci()->mutable_options())[name] = value;
        if (!args.has("no-options")) record_engine_options(v, v.uci().command(), {});
        v.set_bench(uint64_t(args.get_int("bench", 0)));
    } else {
        if (args.has("option")) throw UsageError("--option needs --uci");
        const std::string preset = args.get_string("preset");
        const auto overrides = parse_overrides(args.get_string("set", ""));
        v.mutable_builtin()->set_preset(preset);
        for (const auto& [name, value] : overrides)
            (*v.mutable_builtin()->mutable_overrides())[name] = value;
        const int64_t hash = args.get_int("hash", 0);
        if (hash < 0 || hash > 65536) throw UsageError("--hash must be in 0..65536");
        v.mutable_builtin()->set_hash_mb(uint32_t(hash));
        v.set_bench(args.has("bench") ? uint64_t(args.get_int("bench"))
                                      : local_bench(preset, overrides));
    }
    return add_version(args, client, request);
}

// Adds the version and says so.
int add_version(const Flags& args, RemoteClient& client, const v1::AddVersionRequest& request) {
    v1::Version added;
    client.call(&v1::UserService::Stub::AddVersion, request, &added);
    if (args.has("json"))
        std::cout << to_json(added) << "\n";
    else
        std::cout << "version " << added.name() << " added (id " << added.id() << ", bench "
                  << added.bench() << ")\n";
    return 0;
}

// Runs `versions list|show|add`.
int versions(const Flags& args) {
    const auto& pos = args.positional();
    if (pos.empty()) throw UsageError("versions needs add, list, show or options");
    RemoteClient client(args);
    if (pos[0] == "add") return versions_add(args, client);
    if (pos[0] == "options") {
        if (pos.size() != 2) throw UsageError("versions options needs a NAME");
        v1::GetVersionRequest request;
        request.set_name(valid_utf8(pos[1]));
        v1::Version v;
        client.call(&v1::UserService::Stub::GetVersion, request, &v);
        if (args.has("json")) {
            v1::Version options;
            *options.mutable_options() = v.options();
            std::cout << to_json(options) << "\n";
            return 0;
        }
        if (!v.has_builtin() && v.options_size() == 0)
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
        if (args.has("json")) {
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
    if (args.has("json")) {
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
int64_t date_ms(const Flags& args, const char* flag, int days) {
    const std::string text = args.get_string(flag);
    const std::optional<int64_t> ms = utc_day_ms(text);
    if (!ms)
        throw UsageError("--" + std::string(flag) + " takes a date as YYYY-MM-DD (UTC), not '" +
                         text + "'");
    return *ms + int64_t(days) * 86'400'000;
}

int runs(const Flags& args) {
    if (!args.positional().empty()) throw UsageError("runs takes no arguments");
    v1::ListRunsRequest request;
    if (args.has("active")) request.add_states(v1::RUN_STATE_ACTIVE);
    request.set_limit(uint32_t(std::clamp<int64_t>(args.get_int("limit"), 1, 100000)));
    if (args.has("owner")) request.set_owner(args.get_string("owner"));
    if (args.has("tc")) request.set_time_control(args.get_string("tc"));
    if (args.has("result")) request.set_result(args.get_string("result"));
    if (args.has("since")) request.set_created_from_unix_ms(date_ms(args, "since", 0));
    // The whole day the flag names.
    if (args.has("until")) request.set_created_until_unix_ms(date_ms(args, "until", 1));
    RemoteClient client(args);
    v1::ListRunsResponse response;
    client.call(&v1::UserService::Stub::ListRuns, request, &response);
    if (args.has("json")) {
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
    return 0;
}

// Runs `show RUN`, or follows it with --watch.
int show(const Flags& args) {
    v1::GetRunRequest request;
    request.set_run_id(run_id_argument(args));
    RemoteClient client(args);
    if (args.has("watch")) {
        if (args.has("json")) throw UsageError("--watch does not go with --json");
        watch_run(request.run_id(), client);
        return 0;
    }
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::GetRun, request, &run);
    if (args.has("json")) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    cli_run_kind(run.spec().kind()).show(run, client);
    return 0;
}

// Runs `stop RUN`.
int stop(const Flags& args) {
    v1::StopRunRequest request;
    request.set_run_id(run_id_argument(args));
    RemoteClient client(args);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::StopRun, request, &run);
    if (args.has("json"))
        std::cout << to_json(run) << "\n";
    else
        std::cout << "run " << run.id() << " stopped after " << run.games() << " games\n";
    return 0;
}

// Runs `modify RUN --priority P --throughput T --games N --description D`.
int modify(const Flags& args) {
    v1::ModifyRunRequest request;
    request.set_run_id(run_id_argument(args));
    if (args.has("priority"))
        request.set_priority(int32_t(args.get_int_in("priority", -1000, 1000)));
    if (args.has("throughput"))
        request.set_throughput(uint32_t(args.get_int_in("throughput", 1, 10000)));
    if (args.has("games")) request.set_games(uint64_t(args.get_int_in("games", 2, 1'000'000'000)));
    if (args.has("description")) request.set_description(args.get_string("description"));
    // What cannot change goes to the coordinator all the same, which says why and what to do.
    if (args.has("test")) request.set_test_version(args.get_string("test"));
    if (args.has("base")) request.set_base_version(args.get_string("base"));
    if (args.has("tc")) request.mutable_time_control();
    if (args.has("book")) request.mutable_book()->set_source(args.get_string("book"));
    if (!request.has_priority() && !request.has_throughput() && !request.has_games() &&
        !request.has_description() && !args.has("test") && !args.has("base") && !args.has("tc") &&
        !args.has("book"))
        throw UsageError(
            "nothing to change: give --priority, --throughput, --games or --description");
    RemoteClient client(args);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::ModifyRun, request, &run);
    if (args.has("json")) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    std::cout << "run " << run.id() << ": priority " << run.spec().priority() << ", throughput "
              << run.spec().throughput() << "%, games " << run.games() << "/" << run.spec().games()
              << " (" << state_name(run.state())
              << (run.result().empty() ? "" : ", " + run.result()) << ")\n";
    return 0;
}

// Runs `notify [URL | --clear]`.
int notify(const Flags& args) {
    if (args.positional().size() > 1) throw UsageError("notify takes one URL at most");
    v1::SetNotifyUrlRequest request;
    if (!args.positional().empty()) request.set_url(args.positional()[0]);
    if (args.has("clear")) {
        if (request.has_url()) throw UsageError("give a URL or --clear, not both");
        request.set_url("");
    }
    RemoteClient client(args);
    v1::SetNotifyUrlResponse response;
    client.call(&v1::UserService::Stub::SetNotifyUrl, request, &response);
    if (args.has("json")) {
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
int workers(const Flags& args) {
    if (!args.positional().empty()) throw UsageError("workers takes no arguments");
    RemoteClient client(args);
    v1::ListWorkersRequest request;
    request.set_include_inactive(args.has("all"));
    v1::ListWorkersResponse response;
    client.call(&v1::UserService::Stub::ListWorkers, request, &response);
    if (args.has("json")) {
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
int purge(const Flags& args) {
    v1::PurgeWorkerRequest request;
    request.set_run_id(run_id_argument(args));
    if (!args.has("worker")) throw UsageError("--worker is required: the worker to purge");
    request.set_worker_id(args.get_int_in("worker", 1, std::numeric_limits<int64_t>::max()));
    RemoteClient client(args);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::PurgeWorker, request, &run);
    if (args.has("json")) {
        std::cout << to_json(run) << "\n";
        return 0;
    }
    for (const v1::Purge& p : run.purges())
        if (p.worker_id() == request.worker_id())
            std::cout << "run " << run.id() << ": " << p.games() << " games of worker "
                      << p.worker_id() << " (" << p.worker_name() << ") purged; the run counts "
                      << run.games() << " games now (" << state_name(run.state())
                      << (run.result().empty() ? "" : ", " + run.result()) << ")\n";
    return 0;
}

// Runs `export RUN`: every recorded game as PGN, page by page; `export positions` writes a
// generation run's labelled positions instead.
int export_games(const Flags& args) {
    if (!args.positional().empty() && args.positional()[0] == "positions")
        return export_positions(args);
    for (const char* flag : {"run", "format"})
        if (args.has(flag))
            throw UsageError("--" + std::string(flag) + " goes with export positions");
    v1::ExportGamesRequest request;
    request.set_run_id(run_id_argument(args));
    RemoteClient client(args);
    std::ofstream file;
    if (args.has("out")) {
        file.open(args.get_string("out"), std::ios::binary);
        if (!file) throw std::runtime_error("cannot write " + args.get_string("out"));
    }
    std::ostream& out = args.has("out") ? file : std::cout;
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
    if (args.has("out"))
        std::cerr << games << " games written to " << args.get_string("out") << "\n";
    return 0;
}

}  // namespace

Command versions_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"preset", "NAME", "add: built-in parameter preset", "default"},
        {"set", "NAME=V,...", "add: built-in parameters that differ from the preset"},
        {"hash", "MB", "add: hash table of the built-in engine (default: the engine's)"},
        {"uci", "COMMAND", "add: an external UCI engine instead of the built-in one"},
        {"option", "NAME=V,...", "add: UCI options of the external or uploaded engine"},
        {"engine-file", "PATH", "add: upload this executable UCI engine to the coordinator"},
        {"engine-archive", "FILE", "add: upload this .tar.gz of an engine and its files"},
        {"no-options", "",
         "add: do not start the --uci or --engine-file engine here to read its options (they "
         "are then not recorded and cannot tune)"},
        {"entry", "PATH", "add: the executable's path inside --engine-archive"},
        {"arg", "ARG", "add: an argument the uploaded engine starts with (repeatable)", "", false,
         true},
        {"bench", "N", "add: bench signature (built-in: computed here when not given)"},
        {"from-run", "RUN",
         "add: the current values of a tuning run, or a training run's result, on its base "
         "version"},
        {"description", "TEXT", "add: free text"},
        {"reference-nps", "N",
         "add: the speed its clock runs are defined for (nodes per second of one game's engine "
         "as workers measure it); workers scale clocks by it"},
        {"json", "", "print JSON"},
    });
    return {"versions",
            "add, list or show engine versions and their engines' options on the coordinator",
            "add NAME [--preset P] [--set N=V,...] | add NAME --from-run RUN | "
            "add NAME --engine-file PATH [--arg A]... | list | show NAME | options NAME",
            flags, versions};
}

Command runs_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"active", "", "only active runs"},
        {"owner", "USER", "only runs this user submitted (the name of their token)"},
        {"tc", "TC", "only runs at this time control (10+0.1, nodes=1000)"},
        {"result", "TEXT", "only runs whose result starts with TEXT (H1, H0, stopped)"},
        {"since", "DATE", "only runs created on or after DATE (YYYY-MM-DD, UTC)"},
        {"until", "DATE", "only runs created on or before DATE (YYYY-MM-DD, UTC)"},
        {"limit", "N", "at most N runs", "50"},
        {"json", "", "print JSON"},
    });
    return {"runs", "list the coordinator's runs: state, versions, games, Elo, LLR", "", flags,
            runs};
}

Command show_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"watch", "", "follow the run live until it ends"},
        {"json", "", "print JSON"},
    });
    return {"show", "show a run: results, pentanomial counts, Elo, SPRT bounds, tuned values",
            "RUN [--watch]", flags, show};
}

Command stop_command() {
    static const std::vector<Flag> flags = with_remote_flags({{"json", "", "print JSON"}});
    return {"stop", "stop an active run (yours; an admin token: anybody's); its workers stop",
            "RUN", flags, stop};
}

Command notify_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"clear", "", "no more notifications"},
        {"json", "", "print JSON"},
    });
    return {"notify",
            "post a JSON notice of each of your runs' ends to URL (its host must be on the "
            "coordinator's --notify-allow list); without URL: show where they go",
            "[URL | --clear]", flags, notify};
}

Command modify_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"priority", "P", "higher priorities are served first (-1000..1000)"},
        {"throughput", "T", "share of the workers among equal priorities, percent (1..10000)"},
        {"games", "N", "games (regression: the maximum); not below those played or leased"},
        {"description", "TEXT", "free text (also of a run that has ended)"},
        {"test", "VERSION", "cannot change: refused, submit --like RUN instead"},
        {"base", "VERSION", "cannot change: refused, submit --like RUN instead"},
        {"tc", "TC", "cannot change: refused, submit --like RUN instead"},
        {"book", "FILE", "cannot change: refused, submit --like RUN instead"},
        {"json", "", "print JSON"},
    });
    return {"modify",
            "change a run after submit (yours; an admin token: anybody's); the run's history "
            "shows who changed what",
            "RUN [--priority P] [--throughput T] [--games N] [--description TEXT]", flags, modify};
}

Command workers_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"all", "", "include workers not seen lately"},
        {"json", "", "print JSON"},
    });
    return {"workers", "list the workers of the coordinator", "", flags, workers};
}

Command purge_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"worker", "W", "the worker whose games to remove (see `sparring workers --all`)"},
        {"json", "", "print JSON"},
    });
    return {"purge",
            "remove a worker's games from a run's totals and bar it from the run; the "
            "statistics are recomputed and others play the pairs again",
            "RUN --worker W", flags, purge};
}

Command export_command() {
    static const std::vector<Flag> flags = with_remote_flags({
        {"out", "FILE", "write the PGN (positions: the positions) to FILE instead of stdout"},
        {"run", "RUN", "positions: the generation run"},
        {"format", "F", "positions: fen ('FEN [1.0]'), epd ('c9 \"1-0\";') or fen-score", "epd"},
    });
    return {"export", "export a run's games as PGN, or a generation run's labelled positions",
            "RUN [--out FILE] | positions --run RUN --out FILE [--format F]", flags, export_games};
}

}  // namespace sparring::cli
