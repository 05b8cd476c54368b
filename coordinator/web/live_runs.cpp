#include "coordinator/web/live_runs.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "coordinator/domain/forecast.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/web/pages.h"

namespace sparring::coordinator::web {

namespace {

constexpr size_t kRecentProgress = 64;  // progress events kept to replay onto a whole read

// Returns the update of a run page as a server-sent event (formatted once for its viewers).
std::string event_text(const v1::RunStatus& run, const std::optional<v1::LlrHistory>& history) {
    return "data: " + live_update_json(run, history ? &*history : nullptr) + "\n\n";
}

}  // namespace

LiveRuns::LiveRuns(Reader reader, std::chrono::milliseconds tables_interval)
    : reader_(std::move(reader)), tables_interval_(tables_interval) {}

void LiveRuns::progress(Page& page, const RunProgressed& event) {
    // Reports are counted one after the other and each adds pairs: an event whose total the
    // page already shows was counted in its whole read.
    if (event.counts.pairs <= int64_t(page.run.games() / 2)) return;
    Run run;
    run.counts = event.counts;
    run.elo = event.elo;
    run.sprt.llr = event.llr;
    run.sprt.lower = page.run.llr_lower();  // the bounds do not change while the run is active
    run.sprt.upper = page.run.llr_upper();
    run_results_to_proto(run, &page.run);
    refresh_forecast(&page.run);  // its probabilities, games left and time from the new counts
    page.run.set_pairs_leased(event.pairs_leased);
    page.run.set_active_workers(uint32_t(std::max(0, event.active_leases)));
    // The workers' table: the reporter's games and pentanomial grow with the run's (its fit
    // waits for the next whole read); a worker new to the run gets a row of its own.
    v1::WorkerFit* worker = nullptr;
    for (v1::WorkerFit& w : *page.run.mutable_workers())
        if (w.worker_id() == event.worker_id) worker = &w;
    if (!worker) {
        worker = page.run.add_workers();
        worker->set_run_id(page.run.id());
        worker->set_worker_id(event.worker_id);
    }
    worker->set_games(worker->games() + uint64_t(2 * event.reported.pairs));
    const auto& added = event.reported.penta.counts;
    v1::Pentanomial* penta = worker->mutable_pentanomial();
    penta->set_ll(penta->ll() + uint64_t(added[0]));
    penta->set_ld(penta->ld() + uint64_t(added[1]));
    penta->set_dd_wl(penta->dd_wl() + uint64_t(added[2]));
    penta->set_wd(penta->wd() + uint64_t(added[3]));
    penta->set_ww(penta->ww() + uint64_t(added[4]));
    page.changed = true;
}

int64_t LiveRuns::apply(const Event& event) {
    // Every event about a run names it in run_id.
    const int64_t run_id = std::visit(
        [](const auto& e) -> int64_t {
            if constexpr (requires { e.run_id; })
                return e.run_id;
            else
                return 0;
        },
        static_cast<const Event::variant&>(event));
    if (run_id <= 0) return 0;
    std::lock_guard lock(mutex_);
    const auto it = pages_.find(run_id);
    if (it == pages_.end()) return run_id;  // nobody views it: its first update reads it whole
    Page& page = it->second;
    if (const auto* e = std::get_if<RunProgressed>(&event)) {
        if (e->worker_id == 0) {
            page.stale = true;  // a purge took games away: read the run again
            page.recent.clear();
        } else {
            page.recent.push_back(*e);
            if (page.recent.size() > kRecentProgress) page.recent.pop_front();
            progress(page, *e);
        }
        page.tables_changed = true;  // the fits and the leases' reported games
    } else if (const auto* epoch = std::get_if<TrainingEpochDone>(&event)) {
        if (page.run.has_train()) {
            page.run.mutable_train()->set_epoch(epoch->epoch);
            page.changed = true;
        }
    } else if (std::holds_alternative<RunFinished>(event) ||
               std::holds_alternative<WorkerPurged>(event) ||
               std::holds_alternative<RunModified>(event) ||
               std::holds_alternative<RunPaused>(event) ||
               std::holds_alternative<RunResumed>(event)) {
        page.stale = true;  // once per run's end, purge or change: its state, result, tables
    } else if (!std::holds_alternative<ReportCounted>(event)) {
        page.tables_changed = true;  // leases granted, expired or released; quarantines
    }
    return run_id;
}

std::optional<std::string> LiveRuns::update(int64_t run_id, bool* again) {
    *again = false;
    std::unique_lock lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    const auto found = pages_.find(run_id);
    if (found != pages_.end() && !found->second.stale &&
        (!found->second.tables_changed || now - found->second.read_at < tables_interval_)) {
        // From the events alone.
        Page& page = found->second;
        *again = page.tables_changed;
        if (!page.changed) return std::nullopt;
        page.changed = false;
        const v1::RunStatus run = page.run;
        const std::optional<v1::LlrHistory> history = page.history;
        lock.unlock();
        return event_text(run, history);
    }
    // Read whole. The page is kept from now on, so that the events of the reports the read may
    // miss are kept to replay onto it; events from now on mark it again.
    Page& page = pages_[run_id];
    page.read_at = now;
    page.stale = page.tables_changed = false;
    lock.unlock();
    v1::RunStatus run;
    std::optional<v1::LlrHistory> history;
    const bool read = reader_(run_id, &run, &history);
    lock.lock();
    ++whole_reads_;
    const auto kept = pages_.find(run_id);  // forgotten meanwhile: nobody to show it to
    if (!read || kept == pages_.end()) {
        if (kept != pages_.end()) kept->second.stale = true;
        return std::nullopt;
    }
    Page& fresh = kept->second;
    fresh.run = std::move(run);
    fresh.history = std::move(history);
    for (const RunProgressed& e : fresh.recent) progress(fresh, e);
    fresh.changed = false;
    run = fresh.run;
    history = fresh.history;
    lock.unlock();
    return event_text(run, history);
}

void LiveRuns::forget(int64_t run_id) {
    std::lock_guard lock(mutex_);
    pages_.erase(run_id);
}

uint64_t LiveRuns::whole_reads() const {
    std::lock_guard lock(mutex_);
    return whole_reads_;
}

}  // namespace sparring::coordinator::web
