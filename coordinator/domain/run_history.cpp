#include "coordinator/domain/run_history.h"

#include <algorithm>
#include <string>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

RunHistory history_of(const Run& run, const std::vector<ReportRecord>& reports, size_t max_points) {
    // The statistics come from refresh_statistics, so each point is what the run showed then.
    Run probe;
    probe.spec = run.spec;
    refresh_statistics(probe);
    RunHistory history;
    history.llr_lower = probe.sprt.lower;
    history.llr_upper = probe.sprt.upper;
    history.points.push_back({0, run.created_ms, probe.elo, probe.sprt.llr});
    const size_t n = reports.size();
    const size_t wanted = std::min(n, std::max<size_t>(max_points, 2) - 1);
    size_t next = 0;  // reports [0, next) are in probe.counts
    for (size_t j = 1; j <= wanted; ++j) {
        // The j-th chosen report of `wanted` spread over n: index ceil(j * n / wanted) - 1.
        const size_t last = (j * n + wanted - 1) / wanted - 1;
        for (; next <= last; ++next) probe.counts.add(reports[next].counts);
        refresh_statistics(probe);
        history.points.push_back(
            {2 * probe.counts.pairs, reports[last].received_ms, probe.elo, probe.sprt.llr});
    }
    return history;
}

absl::StatusOr<RunHistory> run_history(Storage& storage, int64_t run_id, size_t max_points) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run) return absl::NotFoundError("no run " + std::to_string(run_id));
    return history_of(*run, storage.list_reports(run_id), max_points);
}

}  // namespace sparring::coordinator
