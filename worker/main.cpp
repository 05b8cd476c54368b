// sparring-worker: plays the coordinator's games on this machine until SIGTERM or SIGINT.
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/flags.h"
#include "common/log.h"
#include "common/signals.h"
#include "match/sandbox.h"
#include "worker/capabilities.h"
#include "worker/worker.h"

namespace {

using sparring::Flag;
using sparring::Flags;
using sparring::UsageError;

constexpr Flag kFlags[] = {
    {"coordinator", "HOST:PORT", "coordinator address (required)"},
    {"token", "TOKEN", "worker token (or --token-file; on the command line it shows in `ps`)"},
    {"token-file", "FILE", "read the worker token from the first line of FILE"},
    {"tls-ca", "FILE", "verify the coordinator's TLS certificate with these CA certificates"},
    {"concurrency", "N", "games played at once", "1"},
    {"name", "NAME", "name shown by `sparring workers` (default: host name)"},
    {"memory-mb", "N", "memory the worker may use (default: what the machine has available)"},
    {"uci-engines", "CMD,...", "external UCI engine commands this worker may run"},
    {"report-seconds", "N", "report finished pairs at least this often", "2"},
    {"accept-uploaded-engines", "",
     "fetch, verify and run engine files uploaded to the coordinator"},
    {"cache-dir", "DIR",
     "where fetched engine files are kept (default: engines/ in the worker's state directory)"},
    {"cache-mb", "N", "most MiB the fetched engine files take; least recently used go first",
     "2048"},
    {"bench-timeout-seconds", "N", "kill a UCI engine's bench after N s (a bench mismatch)", "300"},
    {"engine-memory-headroom-mb", "N",
     "address space of an engine process beyond the hash its run reserved (0: no limit)", "1024"},
    {"engine-cpu-seconds", "N", "CPU time of one engine process, a lease's games (0: no limit)",
     "3600"},
    {"max-lease-kb", "N", "largest lease accepted; a larger one is handed back", "4096"},
    {"engine-sandbox", "MODE",
     "run engines in bubblewrap: uploaded (uploaded engines and their bench), all (the "
     "--uci-engines too) or off",
     "uploaded"},
    {"allow-unconfined-engines", "",
     "run uploaded engines even when the sandbox cannot be created here (else they are refused)"},
    {"engine-max-processes", "N",
     "processes and threads of the worker's user an engine may raise it to (RLIMIT_NPROC; root "
     "is exempt; 0: no limit)",
     "16384"},
    {"engine-max-file-mb", "N", "largest file an engine process may write (0: no limit)", "1024"},
    {"engine-scratch-mb", "N", "a sandboxed engine's working directory, in memory, in MiB", "256"},
    {"speed-every-seconds", "N",
     "scaled clocks: measure this machine's speed with an engine again after N s", "3600"},
    {"speed-movetime-ms", "N",
     "scaled clocks: search time of each of the speed measurement's 4 positions", "250"},
};

// Sets up the engines' sandbox as --engine-sandbox asks: found and tried here, or said why
// not; uploaded engines are then refused unless --allow-unconfined-engines.
void set_up_sandbox(const Flags& args, sparring::worker::Worker::Options& o) {
    const std::string mode = args.get_string("engine-sandbox");
    if (mode != "uploaded" && mode != "all" && mode != "off")
        throw UsageError("--engine-sandbox must be uploaded, all or off");
    const bool allow_unconfined = args.has("allow-unconfined-engines");
    if (mode == "off") {
        if (o.accept_uploaded_engines)
            sparring::log_event(
                sparring::LogLevel::Warn, "engine_sandbox",
                {{"mode", "off"},
                 {"message", "uploaded engines run unconfined, as this worker's user"}});
        return;
    }
    if (!o.accept_uploaded_engines && mode == "uploaded") return;  // nothing to confine
    std::string why;
    std::optional<sparring::match::Sandbox> sandbox = sparring::match::find_sandbox("", &why);
    if (sandbox) {
        sandbox->scratch_mb = args.get_int_in("engine-scratch-mb", 1, 1 << 20);
        sparring::log_event(sparring::LogLevel::Info, "engine_sandbox",
                            {{"mode", mode},
                             {"bwrap", sandbox->bwrap},
                             {"proc", sandbox->mount_proc ? "own" : "none"},
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
    o.endpoint.address = args.get_string("coordinator");
    if (args.has("token") && args.has("token-file"))
        throw UsageError("give --token (or SPARRING_TOKEN) or --token-file, not both");
    if (!args.has("token") && !args.has("token-file"))
        throw UsageError("a worker token is required: --token-file FILE or SPARRING_TOKEN");
    o.endpoint.token = args.has("token-file")
                           ? sparring::rpc::read_token_file(args.get_string("token-file"))
                           : args.get_string("token");
    o.endpoint.tls_ca_file = args.get_string("tls-ca", "");
    o.concurrency = int(args.get_int("concurrency"));
    if (o.concurrency < 1 || o.concurrency > 1024)
        throw UsageError("--concurrency must be in 1..1024");
    o.name = args.get_string("name", sparring::worker::host_name());
    o.memory_mb = args.get_int("memory-mb", sparring::worker::available_memory_mb());
    if (o.memory_mb < 1) throw UsageError("--memory-mb must be positive");
    std::istringstream engines(args.get_string("uci-engines", ""));
    for (std::string engine; std::getline(engines, engine, ',');) {
        if (engine.empty()) continue;
        if (!sparring::worker::is_executable_command(engine))
            throw UsageError("UCI engine '" + engine + "' is not an executable command");
        o.uci_engines.push_back(engine);
    }
    const int64_t report_s = args.get_int("report-seconds");
    if (report_s < 1 || report_s > 3600) throw UsageError("--report-seconds must be in 1..3600");
    o.report_interval = std::chrono::seconds(report_s);
    o.accept_uploaded_engines = args.has("accept-uploaded-engines");
    if (!o.accept_uploaded_engines && (args.has("cache-dir") || args.has("cache-mb")))
        throw UsageError("--cache-dir and --cache-mb need --accept-uploaded-engines");
    o.cache_dir = args.get_string("cache-dir", state_directory() + "/engines");
    o.cache_bytes = uint64_t(args.get_int_in("cache-mb", 1, 1 << 24)) << 20;
    o.bench.timeout = std::chrono::seconds(args.get_int_in("bench-timeout-seconds", 1, 86400));
    o.engine_limits.memory_headroom_mb = args.get_int_in("engine-memory-headroom-mb", 0, 1 << 30);
    o.engine_limits.cpu_seconds = args.get_int_in("engine-cpu-seconds", 0, 365 * 86400);
    o.engine_limits.max_processes = args.get_int_in("engine-max-processes", 0, 1 << 22);
    o.engine_limits.max_file_mb = args.get_int_in("engine-max-file-mb", 0, 1 << 30);
    set_up_sandbox(args, o);
    o.bench.limits = o.engine_limits;
    o.speed_every = std::chrono::seconds(args.get_int_in("speed-every-seconds", 1, 7 * 86400));
    o.speed_movetime_ms = int(args.get_int_in("speed-movetime-ms", 10, 60'000));
    o.endpoint.max_receive_bytes = int(args.get_int_in("max-lease-kb", 1, 1 << 20) * 1024);
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
    const Flags flags(app, kFlags, sparring::Arguments::None, sparring::Environment::EveryFlag);
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
