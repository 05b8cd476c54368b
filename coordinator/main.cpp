// sparring-coordinator: serves the gRPC services on an SQLite file, and manages its tokens.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/signals.h"
#include "coordinator/domain/notifications.h"
#include "coordinator/domain/text.h"
#include "coordinator/ops/backup.h"
#include "coordinator/ops/engine_gc.h"
#include "coordinator/server.h"
#include "coordinator/storage/engine_store.h"
#include "coordinator/storage/sqlite_storage.h"

namespace {

using sparring::Flag;
using sparring::Flags;
using sparring::UsageError;
using namespace sparring::coordinator;
using sparring::log_event;
using sparring::LogLevel;
using sparring::parse_log_level;
using sparring::set_log_level;

constexpr Flag kServeFlags[] = {
    {"db", "FILE", "SQLite database file (created if missing)"},
    {"listen", "HOST:PORT", "address to serve on (port 0 picks one)", "127.0.0.1:50051"},
    {"tls-cert", "FILE", "PEM certificate chain: serve TLS (needs --tls-key)"},
    {"tls-key", "FILE", "PEM private key of the certificate"},
    {"lease-seconds", "N", "a lease expires N seconds after the last heartbeat", "60"},
    {"heartbeat-seconds", "N", "heartbeat interval asked of workers", "10"},
    {"pairs-per-thread", "N", "default game pairs per worker thread in a lease", "4"},
    {"max-queued-calls", "N",
     "calls waiting for the database at most; past it RESOURCE_EXHAUSTED with retry-after-ms "
     "(0: no bound)",
     "64"},
    {"quarantine-p", "P",
     "lease no more of a run to a worker whose results fit the rest at p < P (0: off)", "0"},
    {"max-workers-per-token", "N", "active workers one worker token may register", "1000"},
    {"max-leases-per-token", "N", "leases the workers of one token may hold at once", "1000"},
    {"max-lease-silence-seconds", "N",
     "a lease without a report for N seconds expires, heartbeats or not", "3600"},
    {"lease-failures-per-worker", "N",
     "a worker that failed N leases of a run (engine failures) gets no more of it", "3"},
    {"lease-failure-workers", "N", "a run whose leases failed on N workers stops", "3"},
    {"reference-nps", "N",
     "scaled clocks: the speed (nodes per second) a clock run is defined for when neither it nor "
     "its test version states one (0: workers play clocks as they are)",
     "0"},
    {"min-clock-factor", "F", "scaled clocks: a worker that would scale a clock below F plays none",
     "0.25"},
    {"max-clock-factor", "F",
     "scaled clocks: a worker that would scale a clock above F (too slow) plays none", "4"},
    {"port-file", "FILE", "write the bound port to FILE once serving"},
    {"metrics-listen", "HOST:PORT", "serve Prometheus metrics at http://HOST:PORT/metrics"},
    {"health-listen", "HOST:PORT", "also serve gRPC health checking alone, in plaintext"},
    {"http-listen", "HOST:PORT", "serve the web dashboard, /api/v1 and /metrics over HTTP"},
    {"notify-url", "URL", "POST a JSON notice of every run's end to this http(s) URL"},
    {"notify-allow", "HOST,...",
     "hosts (HOST or HOST:PORT) users may have their runs' ends sent to (sparring notify); "
     "--notify-url's host is allowed"},
    {"public-url", "URL",
     "the dashboard as users reach it, for the links in notifications (default: "
     "http://HTTP-LISTEN)"},
    {"http-port-file", "FILE", "write the dashboard's bound port to FILE once serving"},
    {"http-require-token", "", "the dashboard's pages and queries need a token too"},
    {"http-max-connections", "N",
     "open HTTP connections at most, per port; more are closed at once", "4096"},
    {"http-max-connections-per-address", "N",
     "open HTTP connections from one client address at most, per port", "256"},
    {"http-request-timeout-seconds", "N",
     "an HTTP request's head and body must arrive within N seconds of its first byte", "30"},
    {"http-max-viewers", "N", "live run pages watched at once; more get 503", "500"},
    {"log-level", "LEVEL", "debug, info, warn or error", "info"},
    {"max-engine-mb", "N", "largest uploaded engine file accepted, in MiB", "256"},
    {"max-uploads", "N", "engine uploads at once; more are refused until one ends", "4"},
    {"upload-idle-seconds", "N", "an engine upload that sends nothing for N seconds is ended",
     "60"},
    {"engine-gc-interval-seconds", "N",
     "remove uploaded engine files no version refers to every N seconds (0: never)", "3600"},
    {"engine-gc-min-age-seconds", "N",
     "only files uploaded at least N seconds ago (an upload whose version is not added yet)",
     "86400"},
};

constexpr Flag kGcFlags[] = {
    {"db", "FILE", "the database file"},
    {"min-age-seconds", "N", "keep unreferenced files younger than this (uploads in progress)",
     "3600"},
};

constexpr Flag kBackupFlags[] = {
    {"db", "FILE", "the live database file"},
    {"to", "FILE", "the backup file (replaced atomically if it exists)"},
};

constexpr Flag kTokenFlags[] = {
    {"db", "FILE", "SQLite database file"},
    {"role", "ROLE", "create: worker, user or admin (a user who may stop and change any run)"},
    {"name", "NAME",
     "create: the user (or worker) the token is for; runs and versions it adds are owned by "
     "this name (default: the role)"},
};

// Returns milliseconds since the Unix epoch.
int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Writes the port to a file atomically (a temporary file renamed into place).
void write_port_file(const std::string& path, int port) {
    const std::string temporary = path + ".tmp";
    std::ofstream(temporary) << port << "\n";
    std::filesystem::rename(temporary, path);
}

// Runs the server until SIGINT or SIGTERM.
int serve(const Flags& args) {
    Server::Options options;
    options.db_path = args.get_string("db");
    options.listen = args.get_string("listen");
    options.tls_cert_file = args.get_string("tls-cert", "");
    options.tls_key_file = args.get_string("tls-key", "");
    options.metrics_listen = args.get_string("metrics-listen", "");
    options.health_listen = args.get_string("health-listen", "");
    options.http.listen = args.get_string("http-listen", "");
    options.http.require_token = args.has("http-require-token");
    options.http.max_connections = size_t(args.get_int_in("http-max-connections", 1, 1'000'000));
    options.http.max_connections_per_address =
        size_t(args.get_int_in("http-max-connections-per-address", 1, 1'000'000));
    options.http.request_timeout =
        std::chrono::seconds(args.get_int_in("http-request-timeout-seconds", 1, 3600));
    options.http.max_viewers = int(args.get_int_in("http-max-viewers", 1, 1'000'000));
    // Notifications: the operator's URL and the hosts users' URLs may name.
    const std::string allow = args.get_string("notify-allow", "");
    for (std::string_view rest = allow; !rest.empty();) {
        const size_t comma = rest.find(',');
        if (const std::string_view host = rest.substr(0, comma); !host.empty())
            options.core.notify_hosts.emplace_back(host);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    options.core.notify_url = args.get_string("notify-url", "");
    if (!options.core.notify_url.empty()) {
        const absl::StatusOr<NotifyUrl> url = parse_notify_url(options.core.notify_url);
        if (!url.ok()) throw UsageError("--notify-url: " + std::string(url.status().message()));
        options.core.notify_hosts.push_back(url->host + ":" + std::to_string(url->port));
    }
    options.core.public_url = args.get_string(
        "public-url", options.http.listen.empty() ? "" : "http://" + options.http.listen);
    while (!options.core.public_url.empty() && options.core.public_url.back() == '/')
        options.core.public_url.pop_back();
    if (args.has("http-port-file") && options.http.listen.empty())
        throw UsageError("--http-port-file needs --http-listen");
    const auto level = parse_log_level(args.get_string("log-level"));
    if (!level) throw UsageError("--log-level must be debug, info, warn or error");
    set_log_level(*level);
    const int64_t lease_s = args.get_int("lease-seconds");
    const int64_t heartbeat_s = args.get_int("heartbeat-seconds");
    const int64_t pairs = args.get_int("pairs-per-thread");
    if (lease_s < 1 || heartbeat_s < 1 || heartbeat_s >= lease_s)
        throw UsageError("need 1 <= --heartbeat-seconds < --lease-seconds");
    if (pairs < 1 || pairs > 256) throw UsageError("--pairs-per-thread must be in 1..256");
    options.core.lease_ms = lease_s * 1000;
    options.core.heartbeat_interval_ms = int(heartbeat_s * 1000);
    options.core.pairs_per_thread = int(pairs);
    options.max_queued_calls = size_t(args.get_int_in("max-queued-calls", 0, 1'000'000));
    options.core.quarantine_p = args.get_double("quarantine-p");
    if (!(options.core.quarantine_p >= 0 && options.core.quarantine_p < 1))
        throw UsageError("--quarantine-p must be in [0, 1): 0 turns quarantine off");
    options.engines.max_bytes = uint64_t(args.get_int_in("max-engine-mb", 1, 65536)) << 20;
    options.engines.max_uploads = int(args.get_int_in("max-uploads", 1, 1000));
    options.engines.upload_idle =
        std::chrono::seconds(args.get_int_in("upload-idle-seconds", 1, 86400));
    options.engine_gc_interval =
        std::chrono::seconds(args.get_int_in("engine-gc-interval-seconds", 0, 10LL * 365 * 86400));
    options.engine_gc_min_age =
        std::chrono::seconds(args.get_int_in("engine-gc-min-age-seconds", 0, 10LL * 365 * 86400));
    const auto positive = [&args](const char* flag) {
        const int64_t value = args.get_int(flag);
        if (value < 1 || value > 1'000'000'000)
            throw UsageError(std::string("--") + flag + " must be in 1..1000000000");
        return value;
    };
    options.core.max_workers_per_token = int(positive("max-workers-per-token"));
    options.core.max_leases_per_token = int(positive("max-leases-per-token"));
    options.core.max_lease_silence_ms = positive("max-lease-silence-seconds") * 1000;
    options.core.lease_failures_per_worker = int(positive("lease-failures-per-worker"));
    options.core.lease_failure_workers = int(positive("lease-failure-workers"));
    options.core.reference_nps = uint64_t(args.get_int_in("reference-nps", 0, 1'000'000'000'000));
    if (options.core.reference_nps != 0 && options.core.reference_nps < 1000)
        throw UsageError("--reference-nps must be 0 (off) or in 1000..1000000000000");
    options.core.min_clock_factor = args.get_double("min-clock-factor");
    options.core.max_clock_factor = args.get_double("max-clock-factor");
    if (!(options.core.min_clock_factor > 0 && options.core.min_clock_factor <= 1 &&
          options.core.max_clock_factor >= 1 && options.core.max_clock_factor <= 1000))
        throw UsageError("need 0 < --min-clock-factor <= 1 <= --max-clock-factor <= 1000");

    // Debian's abseil checks every mutex acquisition for lock-order cycles; gRPC takes many.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    // A write past a file-size limit (RLIMIT_FSIZE, as a quota) must fail with EFBIG, which
    // callers get as a full disk, not end the process with SIGXFSZ.
    std::signal(SIGXFSZ, SIG_IGN);

    std::optional<Server> server;   // outlives the signal waiter
    sparring::StopSignals signals;  // before the server starts its threads
    server.emplace(options);
    const int port = server->start();
    log_event(LogLevel::Info, "serving",
              {{"port", std::to_string(port)},
               {"tls", options.tls_cert_file.empty() ? "false" : "true"},
               {"db", options.db_path},
               {"metrics_port", std::to_string(server->metrics_port())},
               {"http_port", std::to_string(server->http_port())}});
    if (args.has("port-file")) write_port_file(args.get_string("port-file"), port);
    if (args.has("http-port-file"))
        write_port_file(args.get_string("http-port-file"), server->http_port());

    signals.watch([&server](int signal) {
        log_event(LogLevel::Info, "shutting_down", {{"signal", std::to_string(signal)}});
        server->shutdown();
    });
    server->wait();
    log_event(LogLevel::Info, "stopped");
    return 0;
}

// Copies the live database to a backup file with SQLite's online backup.
int backup(const Flags& args) {
    const std::string to = args.get_string("to");
    const BackupResult result = backup_database(args.get_string("db"), to);
    std::cout << "backed up " << result.pages << " pages (" << result.bytes << " bytes) to " << to
              << "\n";
    SqliteStorage backup(to, SqliteStorage::Access::ReadOnly);
    const EngineFilesResult engines = backup_engines(
        backup, EngineStore::directory_of(args.get_string("db")), EngineStore::directory_of(to));
    if (engines.files > 0)
        std::cout << "copied " << engines.files << " engine files (" << engines.bytes
                  << " bytes) to " << EngineStore::directory_of(to) << "\n";
    return 0;
}

// Removes the uploaded engine files no version refers to.
int gc_engines(const Flags& args) {
    const int64_t min_age_s = args.get_int_in("min-age-seconds", 0, 10LL * 365 * 86400);
    const std::string db = args.get_string("db");
    if (!std::filesystem::exists(db)) throw StorageError("no database " + db);
    SqliteStorage storage(db);
    const EngineFilesResult result =
        collect_engines(storage, EngineStore::directory_of(db), min_age_s * 1000, now_ms());
    std::cout << "removed " << result.files << " engine files (" << result.bytes << " bytes)\n";
    return 0;
}

// Creates, lists or revokes tokens directly in the database file.
int token(const Flags& args) {
    const auto& positional = args.positional();
    if (positional.empty()) throw UsageError("token needs create, list or revoke");
    SqliteStorage storage(args.get_string("db"));
    const std::string& action = positional[0];
    if (action == "create") {
        const auto role = parse_role(args.get_string("role"));
        if (!role) throw UsageError("--role must be worker, user or admin");
        const Core core({}, now_ms);
        storage.begin(true);
        const std::string secret = core.create_token(
            storage, *role, args.get_string("name", std::string(role_name(*role))));
        storage.commit();
        std::cout << secret << "\n";
        return 0;
    }
    if (action == "list") {
        storage.begin(false);
        for (const Token& t : storage.list_tokens())
            std::cout << t.id << "\t" << role_name(t.role) << "\t" << t.name << "\t"
                      << (t.revoked ? "revoked" : "valid") << "\n";
        storage.commit();
        return 0;
    }
    if (action == "revoke") {
        if (positional.size() != 2) throw UsageError("token revoke needs the token's ID");
        int64_t id = 0;
        try {
            id = std::stoll(positional[1]);
        } catch (const std::exception&) {
            throw UsageError("token ID must be a number (see `token list`)");
        }
        storage.begin(true);
        const bool revoked = storage.revoke_token(id);
        storage.commit();
        if (!revoked) {
            std::cerr << "sparring-coordinator: no token " << id << "\n";
            return 1;
        }
        return 0;
    }
    throw UsageError("unknown token action '" + action + "' (create, list or revoke)");
}

}  // namespace

// Declares serve, token and backup, and runs the one the command line names.
int main(int argc, char** argv) {
    CLI::App app("The coordinator: serves runs to workers and users over gRPC, on SQLite.",
                 "sparring-coordinator");
    sparring::set_synopsis(app, "serve|token|backup|gc-engines [FLAGS]");
    app.require_subcommand(1);
    CLI::App* serve_app = app.add_subcommand("serve", "Serve the coordinator's gRPC services.");
    sparring::set_synopsis(*serve_app, "--db FILE [FLAGS]");
    const Flags serve_flags(*serve_app, kServeFlags, sparring::Arguments::None,
                            sparring::Environment::EveryFlag);
    CLI::App* token_app =
        app.add_subcommand("token", "Create, list or revoke access tokens (stored hashed).");
    sparring::set_synopsis(*token_app, "create|list|revoke [ID] --db FILE [FLAGS]");
    const Flags token_flags(*token_app, kTokenFlags, sparring::Arguments::Any,
                            sparring::Environment::EveryFlag);
    CLI::App* backup_app = app.add_subcommand(
        "backup",
        "Copy the database while the coordinator serves (SQLite online backup), and the "
        "uploaded engine files beside it.");
    sparring::set_synopsis(*backup_app, "--db FILE --to FILE");
    const Flags backup_flags(*backup_app, kBackupFlags, sparring::Arguments::None,
                             sparring::Environment::EveryFlag);
    CLI::App* gc_app =
        app.add_subcommand("gc-engines", "Remove uploaded engine files that no version refers to.");
    sparring::set_synopsis(*gc_app, "--db FILE [--min-age-seconds N]");
    const Flags gc_flags(*gc_app, kGcFlags, sparring::Arguments::None,
                         sparring::Environment::EveryFlag);
    // Set after the subcommands, which would inherit it.
    app.footer(
        "'sparring-coordinator COMMAND --help' lists a command's flags; every flag can also be\n"
        "given as an environment variable: --lease-seconds as SPARRING_LEASE_SECONDS.");
    return sparring::run_command_line(app, argc, argv, [&] {
        if (serve_app->parsed()) return serve(serve_flags);
        if (token_app->parsed()) return token(token_flags);
        if (gc_app->parsed()) return gc_engines(gc_flags);
        return backup(backup_flags);
    });
}
