// The coordinator's metrics in the Prometheus text format: counters and histograms fed by
// the RPC observer and the storage executors, and gauges read from the database per scrape.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// A cumulative histogram with fixed upper bounds (seconds).
class Histogram {
  public:
    Histogram();
    void observe(double value);
    // Appends the _bucket, _sum and _count samples; labels are `key="value",...` or empty.
    void render(std::string& out, std::string_view name, std::string_view labels) const;

  private:
    std::vector<uint64_t> counts_;  // per bound, then one past the last bound (+Inf)
    double sum_ = 0;
    uint64_t count_ = 0;
};

// What the database says at the time of a scrape.
struct MetricsSnapshot {
    int64_t workers_connected = 0;
    std::vector<Run> active_runs;
};

class Metrics {
  public:
    // Records a finished call: the method ("WorkerService/ReportResults"), its status code
    // name and its time from arrival to the status being sent.
    void observe_rpc(std::string_view method, std::string_view code, double seconds);
    // Records one storage transaction and the number of jobs it committed.
    void observe_transaction(bool write, size_t jobs, double seconds);
    // Records an acknowledged result report and the games it carried.
    void count_report(int64_t games, bool duplicate);

    // Returns every metric in the Prometheus text exposition format (version 0.0.4).
    std::string render(const MetricsSnapshot& snapshot) const;

  private:
    mutable std::mutex mutex_;
    std::map<std::string, Histogram, std::less<>> rpc_seconds_;
    std::map<std::pair<std::string, std::string>, uint64_t> rpc_calls_;
    Histogram transaction_seconds_[2];  // read, write
    uint64_t transaction_jobs_[2] = {0, 0};
    uint64_t reports_counted_ = 0;
    uint64_t reports_duplicate_ = 0;
    uint64_t games_ = 0;
};

}  // namespace sparring::coordinator
