// sparring-worker: plays the coordinator's games on this machine until SIGTERM or SIGINT.
#include <sched.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/flags.h"
#include "common/log.h"
#include "common/signals.h"
#include "match/child_process.h"
#include "match/runner.h"
#include "match/sandbox.h"
#include "worker/capabilities.h"
#include "worker/cpu_affinity.h"
#include "worker/cpu_identity.h"
#include "worker/engine_url.h"
#include "worker/worker.h"

namespace {

using sparring::UsageError;

// The worker's flags, each also read from its environment variable.
struct Flags {
    std::string coordinator;
    CLI::Option* coordinator_option = nullptr;
    std::optional<std::string> token, token_file, tls_ca, name, uci_engines, cache_dir;
    std::optional<std::string> engine_url;
    std::optional<std::string> isa_levels;
    std::optional<int64_t> memory_mb;
    // Fleet controls (issue 52, part D).
    std::optional<std::string> cpu_affinity, prefer_owner;
    bool only_fixed_nodes = false;
    int64_t min_threads = 0, max_threads = 0, exit_when_idle = 0;
    int64_t concurrency = 0, report_seconds = 0, cache_mb = 0, bench_timeout_seconds = 0;
    int64_t engine_memory_headroom_mb = 0, engine_cpu_seconds = 0, max_lease_kb = 0;
    int64_t engine_max_processes = 0, engine_max_file_mb = 0, engine_scratch_mb = 0;
    int64_t speed_every_seconds = 0, speed_movetime_ms = 0;
    bool accept_uploaded_engines = false, allow_unconfined_engines = false;
    CLI::Option* cache_mb_option = nullptr;
    std::string engine_sandbox, pin_games, engine_cgroup;

    // Declares the flags on app.
    explicit Flags(CLI::App& app);
    // Declares the fleet controls' flags.
    void add_fleet_flags(CLI::App& app);
};

Flags::Flags(CLI::App& app) {
    using sparring::add_flag;
    using sparring::add_list;
    coordinator_option =
        add_flag(app, "coordinator", coordinator, "HOST:PORT", "coordinator address (required)");
    add_flag(app, "token", token, "TOKEN",
             "worker token (or --token-file; on the command line it shows in `ps`)");
    add_flag(app, "token-file", token_file, "FILE",
             "read the worker token from the first line of FILE");
    add_flag(app, "tls-ca", tls_ca, "FILE",
             "verify the coordinator's TLS certificate with these CA certificates");
    add_flag(app, "concurrency", concurrency, "N", "games played at once", "1", 1, 1024);
    add_flag(app, "name", name, "NAME", "name shown by `sparring workers` (default: host name)");
    add_flag(app, "memory-mb", memory_mb, "N",
             "memory the worker may use (default: what the machine has available)");
    add_list(app, "uci-engines", uci_engines, "CMD,...",
             "external UCI engine commands this worker may run");
    add_flag(app, "report-seconds", report_seconds, "N",
             "report finished pairs at least this often", "2", 1, 3600);
    sparring::add_switch(app, "accept-uploaded-engines", accept_uploaded_engines,
                         "fetch, verify and run engine files uploaded to the coordinator");
    add_flag(app, "cache-dir", cache_dir, "DIR",
             "where fetched engine files are kept (default: engines/ in the worker's state "
             "directory)");
    add_flag(app, "engine-url", engine_url, "URL",
             "fetch uploaded engine files from URL/SHA256 (sent the token only when it is the "
             "coordinator's own), or 'grpc' for gRPC only (default: where the coordinator says; "
             "gRPC is the fallback)");
    cache_mb_option = add_flag(
        app, "cache-mb", cache_mb, "N",
        "most MiB the fetched engine files take; least recently used go first", "2048", 1, 1 << 24);
    add_flag(app, "bench-timeout-seconds", bench_timeout_seconds, "N",
             "kill a UCI engine's bench after N s (a bench mismatch)", "300", 1, 86400);
    add_flag(app, "engine-memory-headroom-mb", engine_memory_headroom_mb, "N",
             "address space of an engine process beyond the hash its run reserved (0: "
             "no limit)",
             "1024", 0, 1 << 30);
    add_flag(app, "engine-cpu-seconds", engine_cpu_seconds, "N",
             "CPU time of one engine process, a lease's games (0: no limit)", "3600", 0,
             365 * 86400);
    add_flag(app, "max-lease-kb", max_lease_kb, "N",
             "largest lease accepted; a larger one is handed back", "4096", 1, 1 << 20);
    sparring::one_of(
        add_flag(app, "engine-sandbox", engine_sandbox, "MODE",
                 "run engines in bubblewrap: uploaded (uploaded engines and their bench), all (the "
                 "--uci-engines too) or off",
                 "uploaded"),
        {"uploaded", "all", "off"});
    sparring::add_switch(
        app, "allow-unconfined-engines", allow_unconfined_engines,
        "run uploaded engines outside the sandbox when it cannot be created here or is off "
        "(else they are refused)");
    sparring::one_of(
        add_flag(app, "engine-cgroup", engine_cgroup, "MODE",
                 "auto: each engine's process tree in a cgroup of its own with memory, process and "
                 "CPU limits, where this worker has a delegated cgroup v2 group (systemd's "
                 "Delegate=); off: the rlimits alone",
                 "auto"),
        {"auto", "off"});
    sparring::one_of(
        add_flag(app, "pin-games", pin_games, "MODE",
                 "pin each game at once to the cores its run's threads count: on, off, or auto "
                 "(when --concurrency equals the cores this worker may use)",
                 "auto"),
        {"auto", "on", "off"});
    add_flag(app, "engine-max-processes", engine_max_processes, "N",
             "processes and threads of the worker's user an engine may raise it to "
             "(RLIMIT_NPROC; root is exempt; 0: no limit)",
             "16384", 0, 1 << 22);
    add_flag(app, "engine-max-file-mb", engine_max_file_mb, "N",
             "largest file an engine process may write (0: no limit)", "1024", 0, 1 << 30);
    add_flag(app, "engine-scratch-mb", engine_scratch_mb, "N",
             "a sandboxed engine's working directory, in memory, in MiB", "256", 1, 1 << 20);
    add_flag(app, "speed-every-seconds", speed_every_seconds, "N",
             "scaled clocks: measure this machine's speed with an engine again after N s", "3600",
             1, 7 * 86400);
    add_flag(app, "speed-movetime-ms", speed_movetime_ms, "N",
             "scaled clocks: search time of each of the speed measurement's 4 positions", "250", 10,
             60'000);
    add_list(app, "isa-levels", isa_levels, "LEVEL,...",
             "claim only these instruction-set levels (x86-64, x86-64-v2, x86-64-v3, x86-64-v4; "
             "armv8-a, armv8.2-a): the highest named and the CPU's levels below it (default: "
             "every level the CPU runs)");
    add_fleet_flags(app);
    sparring::every_flag_from_environment(app);
}

void Flags::add_fleet_flags(CLI::App& app) {
    using sparring::add_flag;
    add_flag(app, "cpu-affinity", cpu_affinity, "LIST",
             "run the worker and pin each game at once on these cores: CPU numbers (0-7,16-23) "
             "or a core type of a hybrid CPU (performance, efficiency)");
    sparring::add_switch(app, "only-fixed-nodes", only_fixed_nodes,
                         "take only node- and depth-limited runs (a noisy machine)");
    add_flag(app, "prefer-owner", prefer_owner, "USER",
             "play this user's runs first, before others' of any priority");
    add_flag(app, "min-threads", min_threads, "N",
             "take only runs of at least N threads a game (0: any)", "0", 0, 1024);
    add_flag(app, "max-threads", max_threads, "N",
             "take only runs of at most N threads a game (0: any)", "0", 0, 1024);
    add_flag(app, "exit-when-idle", exit_when_idle, "SECONDS",
             "exit (status 0) after SECONDS without a lease (0: never)", "0", 0, 30 * 86400);
}

// Sets up the engines' sandbox as --engine-sandbox asks: found and tried here, or said why
// not; uploaded engines are then refused unless --allow-unconfined-engines.
void set_up_sandbox(const Flags& args, sparring::worker::Worker::Options& o) {
    const std::string& mode = args.engine_sandbox;
    const bool allow_unconfined = args.allow_unconfined_engines;
    // The process layer holds to the same rule, whatever code starts an uploaded engine.
    sparring::match::allow_unconfined_untrusted(allow_unconfined);
    if (mode == "off") {
        if (!o.accept_uploaded_engines) return;
        sparring::log_event(
            sparring::LogLevel::Warn, "engine_sandbox",
            {{"mode", "off"},
             {"message", allow_unconfined
                             ? "uploaded engines run unconfined, as this worker's user"
                             : "uploaded engines are refused: they run only in the sandbox, "
                               "or unconfined with --allow-unconfined-engines"}});
        if (!allow_unconfined) o.accept_uploaded_engines = false;
        return;
    }
    if (!o.accept_uploaded_engines && mode == "uploaded") return;  // nothing to confine
    std::string why;
    std::optional<sparring::match::Sandbox> sandbox = sparring::match::find_sandbox("", &why);
    if (sandbox) {
        sandbox->scratch_mb = args.engine_scratch_mb;
        sparring::log_event(sparring::LogLevel::Info, "engine_sandbox",
                            {{"mode", mode},
                             {"bwrap", sandbox->bwrap},
                             {"proc", sandbox->mount_proc ? "own" : "none"},
                             {"userns", sandbox->own_user_namespace ? "own" : "none"},
                             {"scratch_mb", std::to_string(sandbox->scratch_mb)}});
        o.engine_limits.sandbox = std::make_shared<const sparring::match::Sandbox>(*sandbox);
        o.engine_limits.sandbox_installed = mode == "all";
        return;
    }
    const bool refuse = o.accept_uploaded_engines && !allow_unconfined;
    sparring::log_event(
        sparring::LogLevel::Warn, "engine_sandbox_unavailable",
        {{"error", why},
         {"message", refuse ? "uploaded engines are refused (--allow-unconfined-engines runs "
                              "them unconfined); install Debian's bubblewrap"
                            : "engines run unconfined, as this worker's user"}});
    if (refuse) o.accept_uploaded_engines = false;
}

// Takes over the worker's cgroup for its engines' groups as --engine-cgroup asks, and says
// which resource boundary is in force.
void set_up_engine_groups(const Flags& args, sparring::worker::Worker::Options& o) {
    std::string why = "--engine-cgroup off";
    if (args.engine_cgroup == "auto")
        if (auto groups = sparring::match::EngineGroups::take_over(&why)) {
            o.engine_limits.groups =
                std::make_shared<const sparring::match::EngineGroups>(std::move(*groups));
            sparring::log_event(sparring::LogLevel::Info, "engine_boundary",
                                {{"kind", "cgroup"},
                                 {"directory", o.engine_limits.groups->directory()},
                                 {"message",
                                  "each engine's process tree has a cgroup of its own: memory, "
                                  "processes and the run's cores"}});
            return;
        }
    sparring::log_event(sparring::LogLevel::Info, "engine_boundary",
                        {{"kind", "rlimits"},
                         {"reason", why},
                         {"message",
                          "each engine process has its rlimits (address space, CPU "
                          "time, processes of its user, file size); nothing bounds "
                          "its process tree as a whole"}});
}

// Confines the worker (and so its games' threads and engines) to the cores --cpu-affinity
// names, which set_up_pinning then splits among its games at once; says which. Throws
// UsageError when they cannot be had, or hold fewer than --concurrency.
void set_up_affinity(const Flags& args, sparring::worker::Worker::Options& o) {
    if (!args.cpu_affinity) return;
    if (args.pin_games == "off")
        throw UsageError("--cpu-affinity pins games: it cannot be given with --pin-games off");
    std::vector<sparring::v1::CoreType> types;
    if (args.cpu_affinity->empty() ||
        !std::isdigit(static_cast<unsigned char>((*args.cpu_affinity)[0])))
        // Those of the identity set_up_identity detected (not a range over a temporary's
        // member, which dies before the loop).
        types.assign(o.identity.core_types().begin(), o.identity.core_types().end());
    const std::vector<int> cores = sparring::worker::affinity_cores(
        *args.cpu_affinity, sparring::match::allowed_cores(), types);
    if (cores.size() < size_t(o.concurrency))
        throw UsageError("--concurrency " + std::to_string(o.concurrency) + " is over the " +
                         std::to_string(cores.size()) + " cores of --cpu-affinity " +
                         *args.cpu_affinity + " (" + sparring::worker::cpu_list_text(cores) + ")");
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int core : cores) CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        throw UsageError("--cpu-affinity " + *args.cpu_affinity + ": " + std::strerror(errno));
    o.controls.set_cpu_affinity(*args.cpu_affinity);
    sparring::log_event(sparring::LogLevel::Info, "cpu_affinity",
                        {{"value", *args.cpu_affinity},
                         {"cores", sparring::worker::cpu_list_text(cores)},
                         {"message", "the worker and its engines run on these cores only"}});
}

// Fills the fleet controls the worker registers with (the runs it takes, whose first) and its
// exit when idle.
void set_up_controls(const Flags& args, sparring::worker::Worker::Options& o) {
    if (args.min_threads > 0 && args.max_threads > 0 && args.min_threads > args.max_threads)
        throw UsageError("--min-threads " + std::to_string(args.min_threads) +
                         " is over --max-threads " + std::to_string(args.max_threads));
    if (args.prefer_owner && args.prefer_owner->empty())
        throw UsageError("--prefer-owner needs a user's name");
    o.controls.set_only_fixed_nodes(args.only_fixed_nodes);
    o.controls.set_prefer_owner(args.prefer_owner.value_or(""));
    o.controls.set_min_threads(uint32_t(args.min_threads));
    o.controls.set_max_threads(uint32_t(args.max_threads));
    o.controls.set_exit_when_idle_seconds(uint32_t(args.exit_when_idle));
    o.exit_when_idle = std::chrono::seconds(args.exit_when_idle);
}

// Gives games the cores to be pinned to as --pin-games asks, and says which.
void set_up_pinning(const Flags& args, sparring::worker::Worker::Options& o) {
    const std::vector<int> cores = sparring::match::allowed_cores();
    const size_t wanted = size_t(o.concurrency);
    // --cpu-affinity pins games on the cores it confined the worker to (set_up_affinity).
    const std::string mode = args.cpu_affinity ? "on" : args.pin_games;
    const bool pin = mode == "on"     ? cores.size() >= wanted
                     : mode == "auto" ? cores.size() == wanted
                                      : false;
    std::string listed;
    for (const int core : cores) listed += (listed.empty() ? "" : ",") + std::to_string(core);
    if (pin) o.engine_limits.cores = cores;
    sparring::log_event(
        sparring::LogLevel::Info, "game_pinning",
        {{"mode", mode},
         {"pinned", pin ? "yes" : "no"},
         {"cores", listed},
         {"message", pin ? "each game at once runs on the cores its run's threads count"
                     : mode == "off"
                         ? "games are not pinned"
                         : "games are not pinned: --concurrency " + std::to_string(wanted) +
                               (mode == "on" ? " is over the " : " is not the ") +
                               std::to_string(cores.size()) + " cores this worker may use"}});
}

// Detects the machine's identity, its levels narrowed to --isa-levels, and logs it.
void set_up_identity(const Flags& args, sparring::worker::Worker::Options& o) {
    o.identity = sparring::worker::detect_identity();
    const std::vector<std::string> supported(o.identity.isa_levels().begin(),
                                             o.identity.isa_levels().end());
    if (args.isa_levels) {
        o.identity.clear_isa_levels();
        for (std::string& level : sparring::worker::claimed_isa_levels(supported, *args.isa_levels))
            o.identity.add_isa_levels(std::move(level));
    }
    std::string levels;
    for (const std::string& level : o.identity.isa_levels())
        levels += (levels.empty() ? "" : ",") + level;
    sparring::log_event(sparring::LogLevel::Info, "machine",
                        {{"cpu", o.identity.cpu_model()},
                         {"isa_levels", levels},
                         {"cpu_class", sparring::worker::cpu_class_of(o.identity)},
                         {"cores", std::to_string(o.identity.physical_cores())},
                         {"threads", std::to_string(o.identity.hardware_threads())},
                         {"os", o.identity.os()},
                         {"kernel", o.identity.kernel()},
                         {"machine_id", o.identity.machine_id()}});
}

// Returns whether argv gives --token itself (not through SPARRING_TOKEN or --token-file).
bool token_on_command_line(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--token") == 0 || std::strncmp(argv[i], "--token=", 8) == 0)
            return true;
    return false;
}

// Returns the worker's state directory: systemd's $STATE_DIRECTORY, else
// $XDG_STATE_HOME/sparring-worker, else ~/.local/state/sparring-worker.
std::string state_directory() {
    if (const char* systemd = std::getenv("STATE_DIRECTORY"); systemd && *systemd) {
        const std::string first(systemd);
        return first.substr(0, first.find(':'));
    }
    if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/sparring-worker";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/.local/state/sparring-worker";
}

// Builds the worker's options from the flags.
sparring::worker::Worker::Options options_of(const Flags& args) {
    sparring::worker::Worker::Options o;
    sparring::require(args.coordinator_option);
    o.endpoint.address = args.coordinator;
    if (args.token && args.token_file)
        throw UsageError("give --token (or SPARRING_TOKEN) or --token-file, not both");
    if (!args.token && !args.token_file)
        throw UsageError("a worker token is required: --token-file FILE or SPARRING_TOKEN");
    o.endpoint.token =
        args.token_file ? sparring::rpc::read_token_file(*args.token_file) : *args.token;
    o.endpoint.tls_ca_file = args.tls_ca.value_or("");
    o.concurrency = int(args.concurrency);
    o.name = args.name ? *args.name : sparring::worker::host_name();
    set_up_identity(args, o);  // --isa-levels refused before anything else is set up
    o.memory_mb = args.memory_mb ? *args.memory_mb : sparring::worker::available_memory_mb();
    if (o.memory_mb < 1) throw UsageError("--memory-mb must be positive");
    std::istringstream engines(args.uci_engines.value_or(""));
    for (std::string engine; std::getline(engines, engine, ',');) {
        if (engine.empty()) continue;
        if (!sparring::worker::is_executable_command(engine))
            throw UsageError("UCI engine '" + engine + "' is not an executable command");
        o.uci_engines.push_back(engine);
    }
    o.report_interval = std::chrono::seconds(args.report_seconds);
    o.accept_uploaded_engines = args.accept_uploaded_engines;
    if (!o.accept_uploaded_engines && (args.cache_dir || sparring::given(args.cache_mb_option)))
        throw UsageError("--cache-dir and --cache-mb need --accept-uploaded-engines");
    o.cache_dir = args.cache_dir ? *args.cache_dir : state_directory() + "/engines";
    o.cache_bytes = uint64_t(args.cache_mb) << 20;
    if (args.engine_url && !o.accept_uploaded_engines)
        throw UsageError("--engine-url needs --accept-uploaded-engines");
    o.engine_url = args.engine_url.value_or("");
    if (std::string origin, path; !o.engine_url.empty() && o.engine_url != "grpc" &&
                                  !sparring::worker::split_url(o.engine_url, &origin, &path))
        throw UsageError("--engine-url must be an http:// or https:// URL, or 'grpc'");
    o.bench.timeout = std::chrono::seconds(args.bench_timeout_seconds);
    o.engine_limits.memory_headroom_mb = args.engine_memory_headroom_mb;
    o.engine_limits.cpu_seconds = args.engine_cpu_seconds;
    o.engine_limits.max_processes = args.engine_max_processes;
    o.engine_limits.max_file_mb = args.engine_max_file_mb;
    set_up_controls(args, o);
    set_up_sandbox(args, o);
    set_up_affinity(args, o);
    set_up_pinning(args, o);
    set_up_engine_groups(args, o);
    o.bench.limits = o.engine_limits;
    o.speed_every = std::chrono::seconds(args.speed_every_seconds);
    o.speed_movetime_ms = int(args.speed_movetime_ms);
    o.endpoint.max_receive_bytes = int(args.max_lease_kb * 1024);
    return o;
}

}  // namespace

// Runs the worker; the first SIGTERM or SIGINT stops it cleanly, a second one at once.
int main(int argc, char** argv) {
    CLI::App app("Play the coordinator's games on this machine.", "sparring-worker");
    sparring::set_synopsis(app, "--coordinator HOST:PORT --token-file FILE [FLAGS]");
    app.footer(
        "Every flag can also be given as an environment variable: --coordinator as "
        "SPARRING_COORDINATOR.");
    const Flags flags(app);
    return sparring::run_command_line(app, argc, argv, [&] {
        sparring::worker::Worker::Options options = options_of(flags);
        if (token_on_command_line(argc, argv))
            sparring::log_event(sparring::LogLevel::Warn, "token_on_command_line",
                                {{"message",
                                  "--token shows in every process listing; use --token-file "
                                  "FILE or SPARRING_TOKEN"}});
        // Engines run as our user: without this they could read our token from
        // /proc/<worker>/environ, cmdline or mem.
        prctl(PR_SET_DUMPABLE, 0);

        std::optional<sparring::worker::Worker> worker;  // outlives the signal waiter
        sparring::StopSignals signals;                   // before the worker starts its threads
        worker.emplace(std::move(options));
        signals.watch([&worker, stopping = false](int signal) mutable {
            if (stopping) std::_Exit(128 + signal);
            stopping = true;
            sparring::log_event(
                sparring::LogLevel::Info, "stopping",
                {{"signal", std::to_string(signal)},
                 {"message", "reporting finished games and handing back the rest"}});
            worker->stop();
        });
        return worker->run();
    });
}
