// The worker process's logic: register, lease work, verify bench signatures, play the pairs
// with the match runner, report them exactly once, heartbeat, and hand work back on stop.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/connection.h"
#include "sparring/v1/worker.grpc.pb.h"

namespace sparring::worker {

class Worker {
  public:
    struct Options {
        rpc::Endpoint endpoint;
        std::string name;
        int concurrency = 1;
        int64_t memory_mb = 0;
        std::vector<std::string> uci_engines;  // commands this machine can run
        std::chrono::milliseconds rpc_timeout{10'000};
        std::chrono::milliseconds report_interval{2'000};
        std::chrono::milliseconds max_backoff{30'000};
        std::chrono::milliseconds shutdown_grace{15'000};  // to report and hand back on stop
    };

    // Throws std::runtime_error if the endpoint is unusable (unreadable CA file).
    explicit Worker(Options options);
    ~Worker();

    // Works until stop() or a fatal refusal (bad token); returns the process exit status.
    int run();
    // Asks run() to return: finished pairs are reported and the rest of the lease handed
    // back. Thread-safe.
    void stop();

  private:
    // Calls until success, a permanent failure, or stop, with capped exponential backoff and
    // jitter between transient failures.
    template <typename Call>
    grpc::Status with_retry(Call call);
    // Registers the worker; false if stopped first or refused.
    bool register_worker();
    // Receives each finished pair as its report entry.
    using PairSink = std::function<void(v1::GamePair&&)>;

    // Plays one lease to its end, reporting as pairs finish.
    void serve_lease(const v1::Lease& lease);
    // Returns what plays a lease's pairs into a sink: self-play games for a generation lease,
    // the match runner otherwise; hands the lease back and returns nullopt when it cannot be
    // played.
    std::optional<std::function<void(const PairSink&)>> player_of(const v1::Lease& lease);
    // Checks both versions' bench signatures; on a mismatch hands the lease back and
    // returns false.
    bool verify_versions(const v1::Lease& lease);
    // Hands a lease back with a reason (retrying until the shutdown grace runs out).
    void release(int64_t lease_id, v1::ReleaseReason reason, int64_t version_id,
                 uint64_t computed_bench, const std::string& message);
    // Sends heartbeats until run() ends; stops the lease the coordinator no longer wants.
    void heartbeat_loop();
    // Sleeps up to duration; returns early (false) when stopping.
    bool sleep_for(std::chrono::milliseconds duration);
    // Logs one line as a structured event with the worker's name and id.
    void log(const std::string& line) const;

    Options options_;
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::WorkerService::Stub> stub_;
    std::atomic<int64_t> worker_id_{0};  // read by the heartbeat thread
    std::atomic<int64_t> heartbeat_ms_{10'000};
    std::atomic<bool> stopping_{false};
    std::atomic<bool> finished_{false};    // run() is returning: the heartbeat thread ends
    std::atomic<bool> lease_stop_{false};  // the runner abandons the current lease
    std::atomic<int64_t> current_lease_{0};
    int exit_status_ = 0;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::map<int64_t, uint64_t> signatures_;  // version id -> bench computed here
};

}  // namespace sparring::worker
