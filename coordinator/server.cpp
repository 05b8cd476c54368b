#include "coordinator/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/dates.h"
#include "common/log.h"
#include "coordinator/domain/waiting.h"
#include "coordinator/engine_files.h"
#include "coordinator/expiry_hold.h"
#include "coordinator/kinds/registry.h"
#include "coordinator/kinds/training_run.h"
#include "coordinator/ops/engine_gc.h"
#include "coordinator/ops/event_log.h"
#include "coordinator/ops/event_metrics.h"
#include "coordinator/rpc/rpc_observer.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

// The core's options with the table of run kinds, which the composition root builds.
Core::Options with_run_kinds(Core::Options options) {
    options.kinds = all_run_kinds();
    return options;
}

// Returns a clock of milliseconds since the Unix epoch that reads the wall clock once and
// then advances with the steady clock: a system clock set forward or back while the
// coordinator runs neither expires leases early nor keeps a dead worker's lease for the size
// of the jump.
std::function<int64_t()> lease_clock() {
    const auto wall = std::chrono::system_clock::now();
    const auto steady = std::chrono::steady_clock::now();
    return [wall, steady] {
        const auto now = wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                    std::chrono::steady_clock::now() - steady);
        return int64_t(
            std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
    };
}

// Returns a file's contents; throws std::runtime_error naming it if it cannot be read.
std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Returns the credentials to listen with: TLS from the key pair files, or plaintext.
std::shared_ptr<grpc::ServerCredentials> credentials(const Server::Options& options) {
    if (options.tls_cert_file.empty() != options.tls_key_file.empty())
        throw std::runtime_error("TLS needs both --tls-cert and --tls-key");
    if (options.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back(
        {read_file(options.tls_key_file), read_file(options.tls_cert_file)});
    return grpc::SslServerCredentials(ssl);
}

}  // namespace

Server::Server(Options options)
    : options_(std::move(options)),
      core_(with_run_kinds(options_.core), lease_clock(), &events_),
      logged_(log_events(events_)),
      counted_(count_events(events_, metrics_)) {
    check_database(options_.db_path);
    // The one factory of storage connections: the executors', the trainer's and the engine
    // collector's.
    open_storage_ = open_sqlite(options_.db_path);
    std::unique_ptr<Storage> writer_storage = open_storage_();
    writer_storage->begin(true);
    core_.resume_leases(*writer_storage);
    writer_storage->commit();
    writer_ = std::make_unique<Executor>(
        std::move(writer_storage),
        Executor::Options{true, options_.max_batch, options_.gather, options_.max_queued_calls,
                          options_.max_queue_wait});
    checkpointer_ = std::make_unique<Database>(options_.db_path);
    std::vector<std::unique_ptr<Storage>> readers;
    for (size_t i = 0; i < std::max<size_t>(1, options_.read_threads); ++i)
        readers.push_back(open_storage_());
    reader_ = std::make_unique<Executor>(
        std::move(readers),
        Executor::Options{false, options_.max_batch, std::chrono::microseconds(0),
                          options_.max_queued_calls});
    for (const bool write : {false, true})
        (write ? writer_ : reader_)
            ->observe([this, write](size_t jobs, std::chrono::nanoseconds elapsed) {
                metrics_.observe_transaction(write, jobs,
                                             std::chrono::duration<double>(elapsed).count());
            });
    trainer_ = std::make_unique<Trainer>(open_storage_, core_, training_steps(), *writer_, events_);
    if (!options_.core.notify_url.empty() || !options_.core.notify_hosts.empty()) {
        options_.notifier.allowed = options_.core.notify_hosts;
        options_.notifier.observe = [this](std::string_view outcome) {
            metrics_.count_notification(outcome);
        };
        notifier_ = std::make_unique<Notifier>(options_.notifier, *writer_, *reader_, events_);
    }
    gate_ = std::make_unique<Gate>(core_, *reader_);
    engine_store_ = std::make_unique<EngineStore>(options_.db_path);
    options_.engines.served = [this](std::string_view transport, uint64_t bytes) {
        metrics_.count_engine_fetch(transport, bytes);
    };
    engine_transfers_ = std::make_unique<EngineTransfers>(options_.engines, core_, *writer_,
                                                          *reader_, *engine_store_);
    worker_service_ =
        std::make_unique<WorkerServiceImpl>(core_, *writer_, *gate_, *engine_transfers_);
    user_api_ = std::make_unique<UserApi>(core_, *writer_, *reader_, history_);
    user_service_ = std::make_unique<UserServiceImpl>(*user_api_, *gate_, *engine_transfers_);
    if (!options_.http.listen.empty()) {
        std::vector<std::unique_ptr<Storage>> web_readers;
        for (size_t i = 0; i < std::max<size_t>(1, options_.read_threads); ++i)
            web_readers.push_back(open_storage_());
        web_reader_ = std::make_unique<Executor>(
            std::move(web_readers),
            Executor::Options{false, options_.max_batch, std::chrono::microseconds(0),
                              options_.max_queued_calls});
        web_api_ = std::make_unique<UserApi>(core_, *writer_, *web_reader_, history_);
        if (options_.http.tls_cert_file.empty()) {
            options_.http.tls_cert_file = options_.tls_cert_file;
            options_.http.tls_key_file = options_.tls_key_file;
        }
        dashboard_ = std::make_unique<web::Dashboard>(options_.http, *web_api_,
                                                      [this] { return render_metrics(); });
        watched_ = dashboard_->follow(events_);
        // Engines fetched by URL: /engines/<sha256> beside the dashboard, behind the worker token.
        serve_engine_files(dashboard_->http_server(),
                           {core_, *web_reader_, *engine_store_,
                            [this](std::string_view sha256, uint64_t first, uint64_t bytes) {
                                engine_transfers_->note_served("http", sha256, first, bytes);
                            }});
    }
}

Server::~Server() {
    shutdown();
    wait();
}

int Server::start() {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(options_.listen, credentials(options_), &port);
    builder.RegisterService(worker_service_.get());
    builder.RegisterService(user_service_.get());
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> observers;
    observers.push_back(std::make_unique<RpcObserverFactory>(metrics_));
    builder.experimental().SetInterceptorCreators(std::move(observers));
    server_ = builder.BuildAndStart();
    if (!server_ || port == 0)
        throw std::runtime_error("cannot listen on " + options_.listen +
                                 " (address in use or malformed?)");
    if (!options_.health_listen.empty()) {
        // The kubelet's gRPC probes speak plaintext only: a server with the health service alone.
        grpc::ServerBuilder health;
        int health_port = 0;
        health.AddListeningPort(options_.health_listen, grpc::InsecureServerCredentials(),
                                &health_port);
        health_server_ = health.BuildAndStart();
        if (!health_server_ || health_port == 0)
            throw std::runtime_error("cannot listen on " + options_.health_listen);
    }
    if (!options_.metrics_listen.empty()) {
        HttpServer::Options http;
        http.listen = options_.metrics_listen;
        // The dashboard's limits on connections and request time hold for /metrics too.
        http.max_connections = options_.http.max_connections;
        http.max_connections_per_address = options_.http.max_connections_per_address;
        http.request_timeout = options_.http.request_timeout;
        http_server_ = std::make_unique<HttpServer>(http);
        http_server_->get("/metrics", [this](const HttpRequest&, HttpResponse& response) {
            serve_metrics(response);
        });
        http_server_->start();
    }
    if (dashboard_) {
        http_port_ = dashboard_->start();
        std::string public_base = options_.notifier.public_url;
        while (!public_base.empty() && public_base.back() == '/') public_base.pop_back();
        engine_transfers_->set_own_http({uint32_t(http_port_), !options_.http.tls_cert_file.empty(),
                                         public_base.empty() ? "" : public_base + "/engines"});
    }
    maintenance_thread_ = std::thread([this] { maintenance_loop(); });
    trainer_->start();
    if (notifier_) {
        // The links name the dashboard's port as bound (--http-listen may ask for port 0).
        if (options_.notifier.public_url.empty() && dashboard_) {
            const std::string& listen = options_.http.listen;
            notifier_->set_public_url(
                (options_.http.tls_cert_file.empty() ? "http://" : "https://") +
                listen.substr(0, listen.rfind(':')) + ":" + std::to_string(http_port_));
        }
        notifier_->start();
    }
    return port;
}

void Server::shutdown() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    stop_.notify_all();
    if (health_server_) health_server_->Shutdown();
    if (dashboard_) dashboard_->stop();
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

void Server::wait() {
    if (server_) server_->Wait();
    if (health_server_) health_server_->Wait();
    if (maintenance_thread_.joinable()) maintenance_thread_.join();
    trainer_->stop();
    if (notifier_) notifier_->stop();
    http_server_.reset();
    writer_->shutdown();
    reader_->shutdown();
}

std::string Server::render_metrics() {
    MetricsSnapshot snapshot;
    std::promise<absl::Status> done;
    reader_->submit(
        [this, &snapshot](Storage& storage) {
            snapshot.workers_connected = core_.count_active_workers(storage);
            snapshot.active_runs = core_.list_runs(storage, {RunState::Active}, 0);
            snapshot.sizing = {core_.options().pairs_per_thread,
                               core_.options().max_pairs_per_lease};
            // Every reason at 0 first, so that an alert's series exists before a run waits.
            for (int r = 0; r <= int(kLastWaitReason); ++r)
                snapshot.runs_waiting[wait_reason_name(WaitReason(r))] = 0;
            const WaitingBoard board = core_.waiting_board(storage, &snapshot.active_runs);
            for (const Run& run : snapshot.active_runs)
                if (run.active_leases == 0)
                    for (const WaitingReason& reason : board.of(run.id).reasons)
                        ++snapshot.runs_waiting[wait_reason_name(reason.reason)];
            return absl::OkStatus();
        },
        [&done](absl::Status status) { done.set_value(std::move(status)); });
    const absl::Status status = done.get_future().get();
    if (!status.ok()) throw std::runtime_error(std::string(status.message()));
    snapshot.engine_uploads = engine_transfers_->uploads();
    return metrics_.render(snapshot);
}

void Server::serve_metrics(HttpResponse& response) {
    try {
        response.set_content(render_metrics(), "text/plain; version=0.0.4; charset=utf-8");
    } catch (const std::exception& e) {
        response.status = 503;
        response.set_content(std::string("metrics unavailable: ") + e.what() + "\n", "text/plain");
    }
}

void Server::maintenance_loop() {
    std::unique_lock lock(mutex_);
    auto next_gc = std::chrono::steady_clock::now() + options_.engine_gc_interval;
    ExpiryHold expiry_hold(2 * Executor::kMaxRetryAfter,
                           std::chrono::milliseconds(options_.core.lease_ms));
    while (!stop_.wait_for(lock, std::chrono::milliseconds(options_.maintenance_interval_ms),
                           [this] { return stopping_; })) {
        lock.unlock();
        engine_transfers_->cancel_idle_uploads();
        if (options_.engine_gc_interval.count() > 0 &&
            std::chrono::steady_clock::now() >= next_gc) {
            next_gc = std::chrono::steady_clock::now() + options_.engine_gc_interval;
            try {
                const int64_t now = unix_now_ms();
                const std::unique_ptr<Storage> storage = open_storage_();
                const EngineFilesResult removed =
                    collect_engines(*storage, EngineStore::directory_of(options_.db_path),
                                    std::chrono::duration_cast<std::chrono::milliseconds>(
                                        options_.engine_gc_min_age)
                                        .count(),
                                    now);
                if (removed.files > 0)
                    log_event(LogLevel::Info, "engines_collected",
                              {{"files", std::to_string(removed.files)},
                               {"bytes", std::to_string(removed.bytes)}});
            } catch (const std::exception& e) {
                log_event(LogLevel::Error, "engine_gc_failed", {{"error", e.what()}});
            }
        }
        try {
            checkpointer_->checkpoint();
        } catch (const StorageError& e) {
            log_event(LogLevel::Error, "checkpoint_failed", {{"error", e.what()}});
        }
        const bool was_holding = expiry_hold.holding();
        const ExpiryHold::Step step =
            expiry_hold.next(std::chrono::steady_clock::now(), writer_->last_shed());
        if (step == ExpiryHold::Step::hold && !was_holding)
            log_event(LogLevel::Warn, "lease_expiry_held",
                      {{"reason", "the coordinator is shedding calls"}});
        if (step == ExpiryHold::Step::renew) log_event(LogLevel::Info, "leases_renewed");
        std::promise<void> done;
        writer_->submit(
            [this, step](Storage& storage) {
                if (step == ExpiryHold::Step::renew) core_.resume_leases(storage);
                if (step != ExpiryHold::Step::hold) core_.expire_leases(storage);
                return absl::OkStatus();
            },
            [&done](const absl::Status&) { done.set_value(); });
        done.get_future().wait();
        lock.lock();
    }
}

}  // namespace sparring::coordinator
