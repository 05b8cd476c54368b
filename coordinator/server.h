// The coordinator's composition root: storage executors, the core and its event bus (with the log
// and the metrics subscribed), both services, the dashboard, health checking and reflection, and
// the maintenance timer (lease expiry, WAL checkpoints).
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/http/http_server.h"
#include "coordinator/ops/metrics.h"
#include "coordinator/ops/notifier.h"
#include "coordinator/ops/trainer.h"
#include "coordinator/rpc/gate.h"
#include "coordinator/rpc/services.h"
#include "coordinator/storage/executor.h"
#include "coordinator/storage/sqlite.h"
#include "coordinator/web/dashboard.h"

namespace sparring::coordinator {

class Server {
  public:
    struct Options {
        std::string db_path;
        std::string listen = "127.0.0.1:50051";  // port 0 picks a free port
        std::string tls_cert_file;               // with tls_key_file: serve TLS
        std::string tls_key_file;
        std::string metrics_listen;  // HOST:PORT of the HTTP endpoint (/metrics); empty: none
        std::string health_listen;   // HOST:PORT of a plaintext health-only gRPC port; empty: none
        web::Dashboard::Options http;  // http.listen: HOST:PORT of the dashboard; empty: none
        Core::Options core;
        int maintenance_interval_ms = 1000;      // lease expiry and WAL checkpoint period
        size_t max_batch = 512;                  // jobs per group commit, at most
        std::chrono::microseconds gather{1000};  // writer: wait for jobs to share a commit
        size_t read_threads = 2;                 // reader: threads, each with a connection
        size_t max_queued_calls = 0;  // per executor; past it calls are shed (0: no bound)
        // Writer: a call whose batch is expected to commit later than this is shed (0: none).
        std::chrono::milliseconds max_queue_wait{0};
        EngineTransfers::Options engines;  // uploaded engine files
        // Uploaded engine files no version refers to are removed this often (0: never), once
        // they are this old.
        std::chrono::seconds engine_gc_interval{3600};
        std::chrono::seconds engine_gc_min_age{86400};
        Notifier::Options notifier;  // runs when core.notify_url or core.notify_hosts is set
    };

    // Opens the database (applying migrations) and renews outstanding leases; throws
    // StorageError or std::runtime_error when it cannot.
    explicit Server(Options options);
    ~Server();

    // Starts serving; returns the port bound. Throws std::runtime_error if it cannot listen.
    int start();
    // Returns the port of the HTTP endpoint, 0 when there is none.
    int metrics_port() const { return http_server_ ? http_server_->port() : 0; }
    // Returns the port of the dashboard, 0 when there is none.
    int http_port() const { return http_port_; }
    // Stops accepting calls, finishes those in flight and stops the maintenance timer.
    void shutdown();
    // Blocks until shutdown() has completed and every committed job has been completed.
    void wait();

  private:
    // Expires leases, checkpoints the WAL and ends idle uploads every maintenance_interval_ms,
    // and collects unreferenced engine files every engine_gc_interval, until shutdown.
    void maintenance_loop();
    // Returns the metrics, with the database's gauges read in a read transaction.
    std::string render_metrics();
    // Answers GET /metrics: the metrics, or 503 when the database cannot be read.
    void serve_metrics(HttpResponse& response);

    Options options_;
    EventBus events_;  // outlives everything that publishes or subscribes
    Core core_;
    Metrics metrics_;
    EventBus::Subscription logged_;           // events to the log
    EventBus::Subscription counted_;          // events to the metrics
    OpenStorage open_storage_;                // every storage connection comes from here
    std::unique_ptr<Database> checkpointer_;  // a connection of its own for checkpoints
    std::unique_ptr<Executor> writer_;
    std::unique_ptr<Executor> reader_;
    std::unique_ptr<Trainer> trainer_;    // training runs, on a thread of its own
    std::unique_ptr<Notifier> notifier_;  // the outbox's notifications, on a thread of its own
    std::unique_ptr<Gate> gate_;          // checks every gRPC call's token first, on the reader
    std::unique_ptr<EngineStore> engine_store_;
    std::unique_ptr<EngineTransfers> engine_transfers_;
    std::unique_ptr<WorkerServiceImpl> worker_service_;
    RunHistoryCache history_;  // the plots' series, shared by the gRPC and the web UserApi
    std::unique_ptr<UserApi> user_api_;
    std::unique_ptr<UserServiceImpl> user_service_;
    std::unique_ptr<Executor> web_reader_;  // the dashboard's reads, on a connection of its own
    std::unique_ptr<UserApi> web_api_;
    std::unique_ptr<web::Dashboard> dashboard_;
    EventBus::Subscription watched_;  // events to the dashboard's live pages; ends first
    int http_port_ = 0;
    std::unique_ptr<grpc::Server> server_;
    std::unique_ptr<grpc::Server> health_server_;
    std::unique_ptr<HttpServer> http_server_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;
    std::thread maintenance_thread_;
};

}  // namespace sparring::coordinator
