#include "coordinator/domain/run_history.h"

#include <algorithm>
#include <string>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

void ReportTotals::add(const std::vector<ReportRecord>& reports) {
    after_report.reserve(after_report.size() + reports.size());
    for (const ReportRecord& report : reports) {
        Step step = after_report.empty() ? Step{} : after_report.back();
        step.counts.add(report.counts);
        step.received_ms = report.received_ms;
        after_report.push_back(step);
        by_worker[report.worker_id].add(report.counts);
        last_report_id = std::max(last_report_id, report.id);
    }
}

RunHistory history_from_totals(const Run& run, const ReportTotals& totals, size_t max_points) {
    // The statistics come from refresh_statistics, so each point is what the run showed then.
    Run probe;
    probe.spec = run.spec;
    refresh_statistics(probe);
    RunHistory history;
    history.llr_lower = probe.sprt.lower;
    history.llr_upper = probe.sprt.upper;
    history.points.push_back({0, run.created_ms, probe.elo, probe.sprt.llr});
    const size_t n = totals.after_report.size();
    const size_t wanted = std::min(n, std::max<size_t>(max_points, 2) - 1);
    for (size_t j = 1; j <= wanted; ++j) {
        // The j-th chosen report of `wanted` spread over n: index ceil(j * n / wanted) - 1.
        const ReportTotals::Step& step = totals.after_report[(j * n + wanted - 1) / wanted - 1];
        probe.counts = step.counts;
        refresh_statistics(probe);
        history.points.push_back(
            {2 * probe.counts.pairs, step.received_ms, probe.elo, probe.sprt.llr});
    }
    const Counts all = n > 0 ? totals.after_report.back().counts : Counts{};
    for (const auto& [worker_id, counts] : totals.by_worker)
        history.workers.push_back(
            {worker_id, "", counts, worker_homogeneity(counts, all).residual});
    return history;
}

RunHistory history_of(const Run& run, const std::vector<ReportRecord>& reports, size_t max_points) {
    ReportTotals totals;
    totals.add(reports);
    return history_from_totals(run, totals, max_points);
}

absl::StatusOr<RunHistory> RunHistoryCache::history(Storage& storage, int64_t run_id,
                                                    size_t max_points) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (!run) return absl::NotFoundError("no run " + std::to_string(run_id));
    const std::shared_ptr<Entry> cached = entry(run_id);
    std::unique_lock lock(cached->mutex);
    // Report ids grow with every commit, so the reports after the last one seen are exactly
    // those counted since; a reader on an older snapshot finds none and gets the newer totals.
    cached->totals.add(storage.list_reports(run_id, cached->totals.last_report_id));
    const size_t reports = cached->totals.after_report.size();
    if (reports != cached->answered_reports || max_points != cached->answered_points ||
        cached->answer.points.empty()) {
        cached->answer = history_from_totals(*run, cached->totals, max_points);
        for (WorkerShare& share : cached->answer.workers)
            if (const std::optional<Worker> worker = storage.find_worker(share.worker_id))
                share.name = worker->name;
        cached->answered_reports = reports;
        cached->answered_points = max_points;
    }
    RunHistory answer = cached->answer;
    lock.unlock();
    resize(run_id, reports);
    for (const Lease& lease : storage.leases_of_run(run_id)) {
        const std::optional<Worker> worker = storage.find_worker(lease.worker_id);
        answer.leases.push_back({lease.id, lease.worker_id, worker ? worker->name : "",
                                 lease.created_ms, 2 * uint64_t(lease.pairs),
                                 2 * uint64_t(lease.pairs_reported)});
    }
    std::sort(answer.leases.begin(), answer.leases.end(),
              [](const LeaseShare& a, const LeaseShare& b) { return a.since_ms < b.since_ms; });
    return answer;
}

std::shared_ptr<RunHistoryCache::Entry> RunHistoryCache::entry(int64_t run_id) {
    std::lock_guard lock(mutex_);
    const auto it = slots_.find(run_id);
    if (it != slots_.end()) {
        recent_.splice(recent_.begin(), recent_, it->second.recent);
        return it->second.entry;
    }
    recent_.push_front(run_id);
    Slot& slot = slots_[run_id];
    slot.entry = std::make_shared<Entry>();
    slot.recent = recent_.begin();
    return slot.entry;
}

void RunHistoryCache::forget(int64_t run_id) {
    std::lock_guard lock(mutex_);
    const auto it = slots_.find(run_id);
    if (it == slots_.end()) return;
    reports_ -= it->second.reports;
    recent_.erase(it->second.recent);
    slots_.erase(it);
}

void RunHistoryCache::resize(int64_t run_id, size_t reports) {
    std::lock_guard lock(mutex_);
    const auto it = slots_.find(run_id);
    if (it == slots_.end()) return;
    reports_ += reports - it->second.reports;
    it->second.reports = reports;
    while (reports_ > max_reports_ && recent_.back() != run_id) {
        const auto last = slots_.find(recent_.back());
        reports_ -= last->second.reports;
        slots_.erase(last);
        recent_.pop_back();
    }
}

}  // namespace sparring::coordinator
