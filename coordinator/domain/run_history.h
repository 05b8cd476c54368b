// A run's statistics as its reports were counted: the series the dashboard plots.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/storage/storage.h"

namespace sparring::coordinator {

struct HistoryPoint {
    int64_t games = 0;
    int64_t unix_ms = 0;
    stats::EloEstimate elo;
    double llr = 0;  // regression runs
};

struct RunHistory {
    double llr_lower = 0;  // the SPRT's bounds (regression runs)
    double llr_upper = 0;
    std::vector<HistoryPoint> points;
};

// Returns the start of a run and its statistics after reports spread evenly over the given
// ones (the last always included), at most max_points points in all (at least 2).
RunHistory history_of(const Run& run, const std::vector<ReportRecord>& reports, size_t max_points);

// Returns a run's history read from storage; NOT_FOUND for an unknown run.
absl::StatusOr<RunHistory> run_history(Storage& storage, int64_t run_id, size_t max_points);

}  // namespace sparring::coordinator
