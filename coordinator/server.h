// The coordinator's gRPC server: storage executors, the core, both services, health checking
// and reflection, and the maintenance timer (lease expiry, WAL checkpoints).
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coordinator/core.h"
#include "coordinator/executor.h"
#include "coordinator/services.h"
#include "coordinator/sqlite.h"

namespace sparring::coordinator {

class Server {
  public:
    struct Options {
        std::string db_path;
        std::string listen = "127.0.0.1:50051";  // port 0 picks a free port
        std::string tls_cert_file;               // with tls_key_file: serve TLS
        std::string tls_key_file;
        Core::Options core;
        int maintenance_interval_ms = 1000;  // lease expiry and WAL checkpoint period
        size_t max_batch = 512;              // jobs per group commit, at most
    };

    // Opens the database (applying migrations) and renews outstanding leases; throws
    // StorageError or std::runtime_error when it cannot.
    explicit Server(Options options);
    ~Server();

    // Starts serving; returns the port bound. Throws std::runtime_error if it cannot listen.
    int start();
    // Stops accepting calls, finishes those in flight and stops the maintenance timer.
    void shutdown();
    // Blocks until shutdown() has completed.
    void wait();

  private:
    // Expires leases and checkpoints the WAL every maintenance_interval_ms until shutdown.
    void maintenance_loop();

    Options options_;
    Core core_;
    std::unique_ptr<Database> checkpointer_;  // a connection of its own for checkpoints
    std::unique_ptr<Executor> writer_;
    std::unique_ptr<Executor> reader_;
    std::unique_ptr<WorkerServiceImpl> worker_service_;
    std::unique_ptr<UserServiceImpl> user_service_;
    std::unique_ptr<grpc::Server> server_;
    std::mutex mutex_;
    std::condition_variable stop_;
    bool stopping_ = false;
    std::thread maintenance_thread_;
};

}  // namespace sparring::coordinator
