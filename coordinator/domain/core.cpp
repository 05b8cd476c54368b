// Core: its construction, the events it publishes and the statistics every use case refreshes.
// Its use cases are in files named for them: tokens, versions, submit, run_queries,
// run_changes, effects, workers, leases, reports, purge, positions and notifications.
#include "coordinator/domain/core.h"

#include <algorithm>
#include <chrono>

#include "coordinator/domain/events.h"
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

void Counts::add(const Counts& other) {
    pairs += other.pairs;
    wins += other.wins;
    draws += other.draws;
    losses += other.losses;
    for (size_t i = 0; i < penta.counts.size(); ++i) penta.counts[i] += other.penta.counts[i];
}

void refresh_statistics(Run& run) {
    run.elo = stats::estimate(run.counts.penta);
    run_kind(run.spec.kind).refresh_statistics(run);
}

Core::Core(Options options, std::function<int64_t()> now_ms, EventBus* events)
    : options_(options),
      now_ms_(std::move(now_ms)),
      events_(events),
      books_(std::max<size_t>(1, options.max_cached_books), std::size_t(256) << 20),
      submits_(size_t(std::max(0, options.max_submits_per_minute)), std::chrono::minutes(1)),
      modifications_(size_t(std::max(0, options.max_modifications_per_minute)),
                     std::chrono::minutes(1)) {
    if (!options_.kinds.empty()) use_run_kinds(options_.kinds);
}

void Core::publish(Storage& storage, Event event) const {
    // At once, not after the commit: a later call of this transaction must see the change (a
    // touch of a run that is rolled back only reads it again).
    if (const auto* e = std::get_if<RunSubmitted>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<RunModified>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<RunFinished>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<LeaseGranted>(&event)) candidates_->touch(e->run_id);
    if (const auto* e = std::get_if<WorkerPurged>(&event)) candidates_->touch(e->run_id);
    if (!events_) return;
    storage.after_commit([events = events_, event = std::move(event)] { events->publish(event); });
}

}  // namespace sparring::coordinator
