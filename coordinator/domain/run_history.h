// A run's statistics as its reports were counted: the series the dashboard plots, and what
// each worker contributed.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/domain/storage.h"

namespace sparring::coordinator {

struct HistoryPoint {
    int64_t games = 0;
    int64_t unix_ms = 0;
    stats::EloEstimate elo;
    double llr = 0;  // regression runs
};

// One worker's counted reports in a run.
struct WorkerShare {
    int64_t worker_id = 0;
    std::string name;
    Counts counts;
    // The largest adjusted standardized residual of its pairs against the rest of the run's
    // (worker_homogeneity, the fit `sparring show` prints).
    double residual = 0;
};

// A lease out on a run.
struct LeaseShare {
    int64_t lease_id = 0;
    int64_t worker_id = 0;
    std::string worker_name;
    int64_t since_ms = 0;
    uint64_t games = 0;
    uint64_t games_reported = 0;
};

struct RunHistory {
    double llr_lower = 0;  // the SPRT's bounds (regression runs)
    double llr_upper = 0;
    std::vector<HistoryPoint> points;
    std::vector<WorkerShare> workers;  // by worker id
    std::vector<LeaseShare> leases;    // out now, oldest first
};

// A run's reports as running totals: after_report[i] holds the counts of reports 0..i.
struct ReportTotals {
    struct Step {
        Counts counts;
        int64_t received_ms = 0;
    };
    std::vector<Step> after_report;
    std::map<int64_t, Counts> by_worker;
    int64_t last_report_id = 0;  // the storage id of the last report added

    // Adds reports recorded after last_report_id, in the order they were counted.
    void add(const std::vector<ReportRecord>& reports);
};

// Returns the start of a run and its statistics after reports spread evenly over the given
// ones (the last always included), at most max_points points in all (at least 2).
RunHistory history_from_totals(const Run& run, const ReportTotals& totals, size_t max_points);
// Returns the same from the reports themselves.
RunHistory history_of(const Run& run, const std::vector<ReportRecord>& reports, size_t max_points);

// Keeps the running totals of recently viewed runs and reads only the reports counted since
// the last view, so a page of a long run costs its new reports, not all of them. Safe to
// call from many reader threads; each call passes the storage of its own thread.
class RunHistoryCache {
  public:
    // Keeps at most about max_reports reports' totals (88 bytes each), evicting the runs
    // viewed least recently; the run being read stays whatever its size.
    explicit RunHistoryCache(size_t max_reports = 2'000'000) : max_reports_(max_reports) {}

    // Returns a run's history read through the cache, its workers named, with the leases
    // out now; NOT_FOUND for an unknown run.
    absl::StatusOr<RunHistory> history(Storage& storage, int64_t run_id, size_t max_points);
    // Drops a run's totals, so that the next view reads them again (after a purge took
    // reports out of the run).
    void forget(int64_t run_id);

  private:
    struct Entry {
        std::mutex mutex;  // held while the totals are brought up to date
        ReportTotals totals;
        // The last answer, kept while no report arrives (finished runs, mostly).
        size_t answered_reports = 0;
        size_t answered_points = 0;
        RunHistory answer;
    };

    struct Slot {
        std::shared_ptr<Entry> entry;
        std::list<int64_t>::iterator recent;
        size_t reports = 0;  // as last brought up to date
    };

    // Returns the entry of a run, created if new, and marks it the most recently used.
    std::shared_ptr<Entry> entry(int64_t run_id);
    // Records the size of a run's entry and evicts the least recently used others while the
    // cache holds more than max_reports.
    void resize(int64_t run_id, size_t reports);

    const size_t max_reports_;
    std::mutex mutex_;
    std::list<int64_t> recent_;  // most recently used first
    std::map<int64_t, Slot> slots_;
    size_t reports_ = 0;  // in every slot together
};

}  // namespace sparring::coordinator
