// The coordinator's metrics as prometheus-cpp families: counters fed by the domain events
// (ops/event_metrics), histograms by the RPC observer and the storage executors, and gauges
// read from the database per scrape.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// How the core sizes leases (Core::Options), for the cores a run wants.
struct LeaseSizing {
    int pairs_per_thread = 4;  // a run's own pairs_per_thread overrides it
    uint32_t max_pairs_per_lease = 1024;
};

// Returns the cores it takes to play an active run's pairs now, the number an autoscaler
// scales workers on (sparring_cores_wanted): the cores its leases hold (active_cores) plus a
// game's cores (spec.threads) for each lease share of its free pairs (pairs_available: a
// game slot's pairs_per_thread, within the kind's pairs per lease). 0 once it has no pairs
// left to lease and no lease out.
int64_t cores_wanted(const Run& run, const LeaseSizing& sizing);

// What the database says at the time of a scrape.
struct MetricsSnapshot {
    int64_t workers_connected = 0;
    std::vector<Run> active_runs;
    int64_t engine_uploads = 0;  // engine uploads in progress
    // Active runs without a lease out that wait, by reason (wait_reason_name; a run waiting
    // for several reasons counts under each).
    std::map<std::string, int64_t> runs_waiting;
    LeaseSizing sizing;  // for the cores each active run wants
};

class Metrics {
  public:
    Metrics();

    // Records a finished call: the method ("WorkerService/ReportResults"), its status code
    // name and its time from arrival to the status being sent.
    void observe_rpc(std::string_view method, std::string_view code, double seconds);
    // Records one storage transaction and the number of jobs it committed.
    void observe_transaction(bool write, size_t jobs, double seconds);
    // Records an acknowledged result report and the games it carried.
    void count_report(int64_t games, bool duplicate);
    // Records what became of a notification's attempt: "delivered", "retried" (it failed and
    // is tried again), "failed" (its last attempt failed) or "dropped".
    void count_notification(std::string_view outcome);
    // Records an engine fetch answered over a transport ("grpc", "http") and its bytes.
    void count_engine_fetch(std::string_view transport, uint64_t bytes);

    // Returns every metric in the Prometheus text exposition format (version 0.0.4).
    std::string render(const MetricsSnapshot& snapshot) const;

  private:
    std::shared_ptr<prometheus::Registry> registry_;
    prometheus::Counter& games_;
    prometheus::Family<prometheus::Counter>& reports_;
    prometheus::Counter& reports_counted_;
    prometheus::Counter& reports_duplicate_;
    prometheus::Family<prometheus::Counter>& notifications_;
    prometheus::Family<prometheus::Counter>& engine_fetches_;
    prometheus::Family<prometheus::Counter>& engine_fetch_bytes_;
    prometheus::Family<prometheus::Counter>& rpc_calls_;
    prometheus::Family<prometheus::Histogram>& rpc_seconds_;
    prometheus::Histogram* transaction_seconds_[2];  // read, write
    prometheus::Counter* transaction_jobs_[2];
};

}  // namespace sparring::coordinator
