// sparring-coordinator: serves the gRPC services on an SQLite file, and manages its tokens.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "common/dates.h"
#include "common/fault_bound.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/signals.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/notifications.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/kinds/registry.h"
#include "coordinator/ops/backup.h"
#include "coordinator/ops/engine_gc.h"
#include "coordinator/server.h"
#include "coordinator/storage/engine_store.h"
#include "coordinator/storage/sqlite_storage.h"

namespace {

using sparring::UsageError;
using namespace sparring::coordinator;
using sparring::log_event;
using sparring::LogLevel;
using sparring::parse_log_level;
using sparring::set_log_level;

// The flags of serve.
struct ServeFlags {
    std::string db;
    CLI::Option* db_option = nullptr;
    std::string listen;
    std::optional<std::string> tls_cert;
    std::optional<std::string> tls_key;
    int64_t lease_seconds = 0;
    int64_t heartbeat_seconds = 0;
    int64_t pairs_per_thread = 0;
    int64_t max_queued_calls = 0;
    int64_t max_queue_wait_ms = 0;
    double quarantine_p = 0;
    std::string fault_bound;
    int64_t max_workers_per_token = 0;
    int64_t max_leases_per_token = 0;
    int64_t max_active_runs_per_user = 0;
    int64_t max_submits_per_minute = 0;
    int64_t max_modifications_per_minute = 0;
    int64_t user_priority_min = 0;
    int64_t user_priority_max = 0;
    int64_t max_lease_silence_seconds = 0;
    int64_t lease_failures_per_worker = 0;
    int64_t lease_failure_workers = 0;
    int64_t reference_nps = 0;
    double min_clock_factor = 0;
    double max_clock_factor = 0;
    std::optional<std::string> port_file;
    CLI::Option* port_file_option = nullptr;
    std::optional<std::string> metrics_listen;
    std::optional<std::string> health_listen;
    std::optional<std::string> http_listen;
    std::optional<std::string> notify_url;
    std::optional<std::string> notify_allow;
    int64_t notify_timeout_seconds = 0;
    int64_t notify_attempts = 0;
    std::optional<std::string> public_url;
    std::optional<std::string> engine_base_url;
    std::optional<std::string> http_port_file;
    CLI::Option* http_port_file_option = nullptr;
    bool http_require_token = false;
    bool metrics_public = false;
    int64_t http_max_connections = 0;
    int64_t http_max_connections_per_address = 0;
    int64_t http_request_timeout_seconds = 0;
    int64_t http_max_viewers = 0;
    int64_t http_max_viewers_per_address = 0;
    std::string log_level;
    int64_t max_engine_mb = 0;
    int64_t max_uploads = 0;
    int64_t max_uploads_per_user = 0;
    int64_t max_unreferenced_engine_mb = 0;
    int64_t upload_idle_seconds = 0;
    int64_t engine_gc_interval_seconds = 0;
    int64_t engine_gc_min_age_seconds = 0;

    // Declares the flags on app, each also read from its environment variable.
    explicit ServeFlags(CLI::App& app);
};

ServeFlags::ServeFlags(CLI::App& app) {
    using sparring::add_flag;
    using sparring::add_list;
    using sparring::add_switch;
    db_option = add_flag(app, "db", db, "FILE", "SQLite database file (created if missing)");
    add_flag(app, "listen", listen, "HOST:PORT", "address to serve on (port 0 picks one)",
             "127.0.0.1:50051");
    add_flag(app, "tls-cert", tls_cert, "FILE",
             "PEM certificate chain: serve TLS (needs --tls-key)");
    add_flag(app, "tls-key", tls_key, "FILE", "PEM private key of the certificate");
    add_flag(app, "lease-seconds", lease_seconds, "N",
             "a lease expires N seconds after the last heartbeat", "60");
    add_flag(app, "heartbeat-seconds", heartbeat_seconds, "N",
             "heartbeat interval asked of workers", "10");
    add_flag(app, "pairs-per-thread", pairs_per_thread, "N",
             "default game pairs per worker thread in a lease", "4");
    add_flag(
        app, "max-queued-calls", max_queued_calls, "N",
        "calls waiting for the database at most; past it RESOURCE_EXHAUSTED with retry-after-ms "
        "(0: no bound)",
        "64", 0, 1'000'000);
    add_flag(app, "max-queue-wait-ms", max_queue_wait_ms, "MS",
             "also shed a call (RESOURCE_EXHAUSTED with retry-after-ms) whose write is expected "
             "to commit later than this, once 64 calls wait (0: no such bound)",
             "0", 0, 60'000);
    add_flag(app, "quarantine-p", quarantine_p, "P",
             "lease no more of a run to a worker whose results fit the rest of its CPU class at "
             "p < P (0: off)",
             "0");
    add_flag(app, "fault-bound", fault_bound, "BOUND",
             "pause a run submitted without a bound of its own once more than PERCENT% of its "
             "games are faulty, after MIN_GAMES (PERCENT%/MIN_GAMES, or off)",
             "10%/20");
    add_flag(app, "max-workers-per-token", max_workers_per_token, "N",
             "active workers one worker token may register", "1000");
    add_flag(app, "max-leases-per-token", max_leases_per_token, "N",
             "leases the workers of one token may hold at once", "1000");
    add_flag(app, "max-active-runs-per-user", max_active_runs_per_user, "N",
             "active runs one user may have at once (admins: any)", "100");
    add_flag(app, "max-submits-per-minute", max_submits_per_minute, "N",
             "runs one user may submit in any minute (admins: any)", "60");
    add_flag(app, "max-modifications-per-minute", max_modifications_per_minute, "N",
             "run changes (sparring modify) one user may make in any minute (admins: any)", "60");
    add_flag(app, "user-priority-min", user_priority_min, "N",
             "the lowest priority a user may give a run (admins: down to -1000)", "-1000", -1000,
             1000);
    add_flag(app, "user-priority-max", user_priority_max, "N",
             "the highest priority a user may give a run (admins: up to 1000)", "100", -1000, 1000);
    add_flag(app, "max-lease-silence-seconds", max_lease_silence_seconds, "N",
             "a lease without a report for N seconds expires, heartbeats or not", "3600");
    add_flag(app, "lease-failures-per-worker", lease_failures_per_worker, "N",
             "a worker that failed N leases of a run (engine failures) gets no more of it", "3");
    add_flag(app, "lease-failure-workers", lease_failure_workers, "N",
             "a run whose leases failed on N workers stops", "3");
    add_flag(app, "reference-nps", reference_nps, "N",
             "scaled clocks: the speed (nodes per second) a clock run is defined for when neither "
             "it nor "
             "its test version states one (0: workers play clocks as they are)",
             "0", 0, 1'000'000'000'000);
    add_flag(app, "min-clock-factor", min_clock_factor, "F",
             "scaled clocks: a worker that would scale a clock below F plays none", "0.25");
    add_flag(app, "max-clock-factor", max_clock_factor, "F",
             "scaled clocks: a worker that would scale a clock above F (too slow) plays none", "4");
    port_file_option =
        add_flag(app, "port-file", port_file, "FILE", "write the bound port to FILE once serving");
    add_flag(app, "metrics-listen", metrics_listen, "HOST:PORT",
             "serve Prometheus metrics at http://HOST:PORT/metrics");
    add_flag(app, "health-listen", health_listen, "HOST:PORT",
             "also serve gRPC health checking alone, in plaintext");
    add_flag(app, "http-listen", http_listen, "HOST:PORT",
             "serve the web dashboard, /api/v1 and /metrics over HTTP");
    add_flag(app, "notify-url", notify_url, "URL",
             "POST a JSON notice of every run's end to this http(s) URL");
    add_list(app, "notify-allow", notify_allow, "HOST:PORT[/PATH],...",
             "receivers users may have their runs' ends sent to (sparring notify): HOST:PORT, or "
             "HOST:PORT/PATH for that path and below it; --notify-url's host and port are allowed");
    add_flag(app, "notify-timeout-seconds", notify_timeout_seconds, "N",
             "a notification's POST is abandoned after N seconds in all, and tried again later",
             "10", 1, 3600);
    add_flag(app, "notify-attempts", notify_attempts, "N",
             "a notification not delivered in N attempts is marked failed", "20", 1, 1000);
    add_flag(app, "public-url", public_url, "URL",
             "the dashboard as users reach it, for the links in notifications (default: "
             "http://HTTP-LISTEN, with the port it bound)");
    http_port_file_option = add_flag(app, "http-port-file", http_port_file, "FILE",
                                     "write the dashboard's bound port to FILE once serving");
    add_switch(app, "http-require-token", http_require_token,
               "the dashboard's pages and queries need a token too");
    add_flag(app, "http-max-connections", http_max_connections, "N",
             "open HTTP connections at most, per port; more are closed at once", "4096", 1,
             1'000'000);
    add_flag(app, "http-max-connections-per-address", http_max_connections_per_address, "N",
             "open HTTP connections from one client address at most, per port", "256", 1,
             1'000'000);
    add_flag(app, "http-request-timeout-seconds", http_request_timeout_seconds, "N",
             "an HTTP request's head and body must arrive within N seconds of its first byte", "30",
             1, 3600);
    add_flag(app, "http-max-viewers", http_max_viewers, "N",
             "live run pages watched at once; more get 503", "500", 1, 1'000'000);
    add_flag(app, "http-max-viewers-per-address", http_max_viewers_per_address, "N",
             "live run pages watched at once from one client address (IPv6: one /64); more get "
             "503",
             "50", 1, 1'000'000);
    add_switch(app, "metrics-public", metrics_public,
               "with --http-require-token, the dashboard's /metrics still answers without a token");
    add_flag(app, "log-level", log_level, "LEVEL", "debug, info, warn or error", "info");
    add_flag(app, "engine-base-url", engine_base_url, "URL",
             "an object store or CDN holding the uploaded engine files as URL/SHA256: workers "
             "fetch there (sent no token), falling back to gRPC (default: this coordinator's "
             "/engines/ over --http-listen)");
    add_flag(app, "max-engine-mb", max_engine_mb, "N",
             "largest uploaded engine file accepted, in MiB", "256", 1, 65536);
    add_flag(app, "max-uploads", max_uploads, "N",
             "engine uploads at once; more are refused until one ends", "4", 1, 1000);
    add_flag(app, "max-uploads-per-user", max_uploads_per_user, "N",
             "engine uploads one user may have in progress at once (admins: any)", "2", 1, 1000);
    add_flag(app, "max-unreferenced-engine-mb", max_unreferenced_engine_mb, "N",
             "MiB of uploaded engine files that no version uses yet one user may keep (admins: "
             "any); an upload past it is refused",
             "2048", 1, 1 << 24);
    add_flag(app, "upload-idle-seconds", upload_idle_seconds, "N",
             "an engine upload that sends nothing for N seconds is ended", "60", 1, 86400);
    add_flag(app, "engine-gc-interval-seconds", engine_gc_interval_seconds, "N",
             "remove uploaded engine files no version refers to every N seconds (0: never)", "3600",
             0, 10LL * 365 * 86400);
    add_flag(
        app, "engine-gc-min-age-seconds", engine_gc_min_age_seconds, "N",
        "only files uploaded at least N seconds ago (an upload whose version is not added yet)",
        "86400", 0, 10LL * 365 * 86400);
    sparring::every_flag_from_environment(app);
}

// The flags of gc-engines.
struct GcFlags {
    std::string db;
    CLI::Option* db_option = nullptr;
    int64_t min_age_seconds = 0;

    // Declares the flags on app, each also read from its environment variable.
    explicit GcFlags(CLI::App& app) {
        db_option = sparring::add_flag(app, "db", db, "FILE", "the database file");
        sparring::add_flag(app, "min-age-seconds", min_age_seconds, "N",
                           "keep unreferenced files younger than this (uploads in progress)",
                           "3600", 0, 10LL * 365 * 86400);
        sparring::every_flag_from_environment(app);
    }
};

// The flags of backup.
struct BackupFlags {
    std::string db, to;
    CLI::Option* db_option = nullptr;
    CLI::Option* to_option = nullptr;

    // Declares the flags on app, each also read from its environment variable.
    explicit BackupFlags(CLI::App& app) {
        db_option = sparring::add_flag(app, "db", db, "FILE", "the live database file");
        to_option = sparring::add_flag(app, "to", to, "FILE",
                                       "the backup file (replaced atomically if it exists)");
        sparring::every_flag_from_environment(app);
    }
};

// The flags of token, and its arguments.
struct TokenFlags {
    std::string db, role;
    CLI::Option* db_option = nullptr;
    CLI::Option* role_option = nullptr;
    std::optional<std::string> name;
    std::vector<std::string> arguments;

    // Declares the flags on app, each also read from its environment variable.
    explicit TokenFlags(CLI::App& app) {
        db_option = sparring::add_flag(app, "db", db, "FILE", "SQLite database file");
        role_option = sparring::add_flag(
            app, "role", role, "ROLE",
            "create: worker, user or admin (a user who may stop and change any run)");
        sparring::add_flag(
            app, "name", name, "NAME",
            "create: the user (or worker) the token is for; runs and versions it adds are owned "
            "by this name (default: the role)");
        sparring::every_flag_from_environment(app);
        sparring::add_arguments(app, arguments);
    }
};

// Writes the port to a file atomically (a temporary file renamed into place).
void write_port_file(const std::string& path, int port) {
    const std::string temporary = path + ".tmp";
    std::ofstream(temporary) << port << "\n";
    std::filesystem::rename(temporary, path);
}

// Runs the server until SIGINT or SIGTERM.
int serve(const ServeFlags& args) {
    Server::Options options;
    sparring::require(args.db_option);
    options.db_path = args.db;
    options.listen = args.listen;
    options.tls_cert_file = args.tls_cert.value_or("");
    options.tls_key_file = args.tls_key.value_or("");
    options.metrics_listen = args.metrics_listen.value_or("");
    options.health_listen = args.health_listen.value_or("");
    options.http.listen = args.http_listen.value_or("");
    options.http.require_token = args.http_require_token;
    options.http.max_connections = size_t(args.http_max_connections);
    options.http.max_connections_per_address = size_t(args.http_max_connections_per_address);
    options.http.request_timeout = std::chrono::seconds(args.http_request_timeout_seconds);
    options.http.max_viewers = int(args.http_max_viewers);
    options.http.max_viewers_per_address = int(args.http_max_viewers_per_address);
    options.http.metrics_public = args.metrics_public;
    // Notifications: the operator's URL and the receivers users' URLs may name.
    const std::string allow = args.notify_allow.value_or("");
    for (std::string_view rest = allow; !rest.empty();) {
        const size_t comma = rest.find(',');
        if (const std::string_view text = rest.substr(0, comma); !text.empty()) {
            const absl::StatusOr<NotifyAllowEntry> entry = parse_notify_allow(text);
            if (!entry.ok())
                throw UsageError("--notify-allow: " + std::string(entry.status().message()));
            options.core.notify_hosts.push_back(to_string(*entry));
        }
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    options.core.notify_url = args.notify_url.value_or("");
    if (!options.core.notify_url.empty()) {
        const absl::StatusOr<NotifyUrl> url = parse_notify_url(options.core.notify_url);
        if (!url.ok()) throw UsageError("--notify-url: " + std::string(url.status().message()));
        options.core.notify_hosts.push_back(destination_of(*url));
    }
    options.notifier.timeout = std::chrono::seconds(args.notify_timeout_seconds);
    options.notifier.max_attempts = int(args.notify_attempts);
    // Without --public-url the server makes the links from the port the dashboard bound.
    options.notifier.public_url = args.public_url.value_or("");
    while (!options.notifier.public_url.empty() && options.notifier.public_url.back() == '/')
        options.notifier.public_url.pop_back();
    if (sparring::given(args.http_port_file_option) && options.http.listen.empty())
        throw UsageError("--http-port-file needs --http-listen");
    const auto level = parse_log_level(args.log_level);
    if (!level) throw UsageError("--log-level must be debug, info, warn or error");
    set_log_level(*level);
    const int64_t lease_s = args.lease_seconds;
    const int64_t heartbeat_s = args.heartbeat_seconds;
    const int64_t pairs = args.pairs_per_thread;
    if (lease_s < 1 || heartbeat_s < 1 || heartbeat_s >= lease_s)
        throw UsageError("need 1 <= --heartbeat-seconds < --lease-seconds");
    if (pairs < 1 || pairs > 256) throw UsageError("--pairs-per-thread must be in 1..256");
    options.core.lease_ms = lease_s * 1000;
    options.core.heartbeat_interval_ms = int(heartbeat_s * 1000);
    options.core.pairs_per_thread = int(pairs);
    options.max_queued_calls = size_t(args.max_queued_calls);
    options.max_queue_wait = std::chrono::milliseconds(args.max_queue_wait_ms);
    options.core.quarantine_p = args.quarantine_p;
    if (!(options.core.quarantine_p >= 0 && options.core.quarantine_p < 1))
        throw UsageError("--quarantine-p must be in [0, 1): 0 turns quarantine off");
    std::string bound_error;
    const std::optional<sparring::FaultBound> bound =
        sparring::parse_fault_bound(args.fault_bound, &bound_error);
    if (!bound) throw UsageError("--fault-bound: " + bound_error);
    options.core.fault_bound = *bound;
    options.engines.max_bytes = uint64_t(args.max_engine_mb) << 20;
    options.engines.max_uploads = int(args.max_uploads);
    options.engines.max_uploads_per_user = int(args.max_uploads_per_user);
    options.engines.max_unreferenced_bytes = uint64_t(args.max_unreferenced_engine_mb) << 20;
    options.engines.upload_idle = std::chrono::seconds(args.upload_idle_seconds);
    options.engines.base_url = args.engine_base_url.value_or("");
    while (!options.engines.base_url.empty() && options.engines.base_url.back() == '/')
        options.engines.base_url.pop_back();
    if (args.engine_base_url && options.engines.base_url.rfind("http://", 0) != 0 &&
        options.engines.base_url.rfind("https://", 0) != 0)
        throw UsageError("--engine-base-url must be an http:// or https:// URL");
    options.engine_gc_interval = std::chrono::seconds(args.engine_gc_interval_seconds);
    options.engine_gc_min_age = std::chrono::seconds(args.engine_gc_min_age_seconds);
    const auto positive = [](const char* flag, int64_t value) {
        if (value < 1 || value > 1'000'000'000)
            throw UsageError(std::string("--") + flag + " must be in 1..1000000000");
        return value;
    };
    options.core.max_workers_per_token =
        int(positive("max-workers-per-token", args.max_workers_per_token));
    options.core.max_leases_per_token =
        int(positive("max-leases-per-token", args.max_leases_per_token));
    options.core.max_active_runs_per_user =
        int(positive("max-active-runs-per-user", args.max_active_runs_per_user));
    options.core.max_submits_per_minute =
        int(positive("max-submits-per-minute", args.max_submits_per_minute));
    options.core.max_modifications_per_minute =
        int(positive("max-modifications-per-minute", args.max_modifications_per_minute));
    if (args.user_priority_min > args.user_priority_max)
        throw UsageError("need --user-priority-min <= --user-priority-max");
    options.core.user_priorities = {int(args.user_priority_min), int(args.user_priority_max)};
    options.core.max_lease_silence_ms =
        positive("max-lease-silence-seconds", args.max_lease_silence_seconds) * 1000;
    options.core.lease_failures_per_worker =
        int(positive("lease-failures-per-worker", args.lease_failures_per_worker));
    options.core.lease_failure_workers =
        int(positive("lease-failure-workers", args.lease_failure_workers));
    options.core.reference_nps = uint64_t(args.reference_nps);
    if (options.core.reference_nps != 0 && options.core.reference_nps < 1000)
        throw UsageError("--reference-nps must be 0 (off) or in 1000..1000000000000");
    options.core.min_clock_factor = args.min_clock_factor;
    options.core.max_clock_factor = args.max_clock_factor;
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
    if (args.port_file) write_port_file(*args.port_file, port);
    if (sparring::given(args.http_port_file_option))
        write_port_file(*args.http_port_file, server->http_port());

    signals.watch([&server](int signal) {
        log_event(LogLevel::Info, "shutting_down", {{"signal", std::to_string(signal)}});
        server->shutdown();
    });
    server->wait();
    log_event(LogLevel::Info, "stopped");
    return 0;
}

// Copies the live database to a backup file with SQLite's online backup.
int backup(const BackupFlags& args) {
    sparring::require(args.to_option);
    sparring::require(args.db_option);
    const std::string to = args.to;
    const BackupResult result = backup_database(args.db, to);
    std::cout << "backed up " << result.pages << " pages (" << result.bytes << " bytes) to " << to
              << "\n";
    SqliteStorage copy(to, SqliteStorage::Access::ReadOnly);
    const EngineFilesResult engines = backup_engines(copy, args.db, to);
    if (engines.files > 0)
        std::cout << "copied " << engines.files << " engine files (" << engines.bytes
                  << " bytes) to " << EngineStore::directory_of(to) << "\n";
    return 0;
}

// Removes the uploaded engine files no version refers to.
int gc_engines(const GcFlags& args) {
    const int64_t min_age_s = args.min_age_seconds;
    sparring::require(args.db_option);
    if (!std::filesystem::exists(args.db)) throw StorageError("no database " + args.db);
    SqliteStorage storage(args.db);
    const EngineFilesResult result = collect_engines(storage, EngineStore::directory_of(args.db),
                                                     min_age_s * 1000, sparring::unix_now_ms());
    std::cout << "removed " << result.files << " engine files (" << result.bytes << " bytes)\n";
    return 0;
}

// Creates, lists or revokes tokens directly in the database file.
int token(const TokenFlags& args) {
    const auto& positional = args.arguments;
    if (positional.empty()) throw UsageError("token needs create, list or revoke");
    sparring::require(args.db_option);
    SqliteStorage storage(args.db);
    const std::string& action = positional[0];
    if (action == "create") {
        sparring::require(args.role_option);
        const auto role = parse_role(args.role);
        if (!role) throw UsageError("--role must be worker, user or admin");
        const std::string name = args.name.value_or(std::string(role_name(*role)));
        if (const absl::Status checked = check_name("--name", name, kMaxTokenNameBytes);
            !checked.ok())
            throw UsageError(std::string(checked.message()));
        if (!args.name && *role != Role::Worker)
            std::cerr << "sparring-coordinator: warning: no --name, so this token's user is '"
                      << name << "', as is every " << name
                      << " token made without --name: they own the same runs and versions and "
                         "may stop and change each other's; give each person their own --name\n";
        Core::Options options;
        options.kinds = all_run_kinds();
        const Core core(options, sparring::unix_now_ms);
        storage.begin(true);
        const std::string secret = core.create_token(storage, *role, name);
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
    const ServeFlags serve_flags(*serve_app);
    CLI::App* token_app =
        app.add_subcommand("token", "Create, list or revoke access tokens (stored hashed).");
    sparring::set_synopsis(*token_app, "create|list|revoke [ID] --db FILE [FLAGS]");
    const TokenFlags token_flags(*token_app);
    CLI::App* backup_app = app.add_subcommand(
        "backup",
        "Copy the database while the coordinator serves (SQLite online backup), and the "
        "uploaded engine files beside it.");
    sparring::set_synopsis(*backup_app, "--db FILE --to FILE");
    const BackupFlags backup_flags(*backup_app);
    CLI::App* gc_app =
        app.add_subcommand("gc-engines", "Remove uploaded engine files that no version refers to.");
    sparring::set_synopsis(*gc_app, "--db FILE [--min-age-seconds N]");
    const GcFlags gc_flags(*gc_app);
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
