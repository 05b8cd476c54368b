#include "coordinator/ops/event_log.h"

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "common/log.h"
#include "common/numbers.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

// Returns the name of a lease release reason as the log shows it.
std::string reason_name(Release::Reason reason) {
    switch (reason) {
        case Release::Reason::Shutdown:
            return "shutdown";
        case Release::Reason::BenchMismatch:
            return "bench_mismatch";
        case Release::Reason::EngineFailure:
            return "engine_failure";
        case Release::Reason::TooSlow:
            return "too_slow";
        case Release::Reason::CpuUnsupported:
            return "cpu_unsupported";
    }
    return "unspecified";
}

// Writes the log line of each kind of event; events without one are not logged.
struct LogLine {
    void operator()(const VersionAdded& e) const {
        log_event(LogLevel::Info, "version_added",
                  {{"version", e.name}, {"bench", std::to_string(e.bench)}});
    }
    void operator()(const RunSubmitted& e) const {
        log_event(LogLevel::Info, "run_submitted",
                  {{"run", std::to_string(e.run_id)},
                   {"test", e.test},
                   {"base", e.base},
                   {"games", std::to_string(e.games)},
                   {"owner", e.owner}});
    }
    void operator()(const RunStopRequested& e) const {
        log_event(LogLevel::Info, "run_stop_requested",
                  {{"run", std::to_string(e.run_id)}, {"peer", e.requested_by}, {"user", e.user}});
    }
    void operator()(const RunModified& e) const {
        for (const RunChange& change : e.changes)
            log_event(LogLevel::Info, "run_modified",
                      {{"run", std::to_string(e.run_id)},
                       {"user", e.user},
                       {"peer", e.peer},
                       {"field", change.field},
                       {"old", change.old_value},
                       {"new", change.new_value}});
    }
    void operator()(const RunFinished& e) const {
        log_event(LogLevel::Info, "run_ended",
                  {{"run", std::to_string(e.run_id)},
                   {"state", std::string(run_state_name(e.state))},
                   {"result", e.result},
                   {"games", std::to_string(e.counts.wins + e.counts.draws + e.counts.losses)},
                   {"elo", fixed(e.elo.elo, 2)},
                   {"llr", fixed(e.llr, 2)}});
    }
    void operator()(const RunPaused& e) const {
        log_event(LogLevel::Warn, "run_paused",
                  {{"run", std::to_string(e.run_id)},
                   {"version", e.pause.version},
                   {"fault", std::string(game_ending_name(e.pause.fault))},
                   {"faulty_games", std::to_string(e.pause.faulty_games)},
                   {"games", std::to_string(e.pause.games)},
                   {"example_game", std::to_string(e.pause.example_game)}});
    }
    void operator()(const RunResumed& e) const {
        log_event(LogLevel::Info, "run_resumed",
                  {{"run", std::to_string(e.run_id)}, {"user", e.user}, {"peer", e.peer}});
    }
    void operator()(const WorkerRegistered& e) const {
        log_event(LogLevel::Info, "worker_registered",
                  {{"worker", std::to_string(e.worker.id)},
                   {"name", e.worker.name},
                   {"concurrency", std::to_string(e.worker.concurrency)},
                   {"cores", std::to_string(e.worker.cores)},
                   {"memory_mb", std::to_string(e.worker.memory_mb)},
                   {"build", e.worker.build},
                   {"peer", e.peer}});
    }
    void operator()(const LeaseGranted& e) const {
        log_event(LogLevel::Debug, "lease_granted",
                  {{"worker", std::to_string(e.worker_id)},
                   {"lease", std::to_string(e.lease_id)},
                   {"run", std::to_string(e.run_id)},
                   {"pairs", std::to_string(e.pairs)}});
    }
    void operator()(const LeaseExpired& e) const {
        log_event(LogLevel::Warn, "leases_expired",
                  {{"count", "1"},
                   {"lease", std::to_string(e.lease_id)},
                   {"worker", std::to_string(e.worker_id)},
                   {"run", std::to_string(e.run_id)},
                   {"why", "no heartbeat or report within the lease time"}});
    }
    void operator()(const LeaseReleased& e) const {
        log_event(e.reason == Release::Reason::Shutdown ? LogLevel::Info : LogLevel::Warn,
                  "lease_released",
                  {{"worker", std::to_string(e.worker_id)},
                   {"lease", std::to_string(e.lease_id)},
                   {"reason", reason_name(e.reason)},
                   {"pairs_returned", std::to_string(e.pairs_returned)},
                   {"message", e.message}});
    }
    void operator()(const ReportCounted& e) const {
        log_event(LogLevel::Debug, "report",
                  {{"worker", std::to_string(e.worker_id)},
                   {"lease", std::to_string(e.lease_id)},
                   {"sequence", std::to_string(e.sequence)},
                   {"games", std::to_string(e.games)},
                   {"duplicate", e.duplicate ? "true" : "false"}});
    }
    void operator()(const WorkerPurged& e) const {
        log_event(LogLevel::Warn, "worker_purged",
                  {{"run", std::to_string(e.run_id)},
                   {"worker", std::to_string(e.worker_id)},
                   {"games", std::to_string(e.games)},
                   {"by", e.purged_by}});
    }
    void operator()(const WorkerQuarantined& e) {
        // A quarantined worker asks again every few seconds: one line per run and worker.
        if (!quarantined.insert({e.run_id, e.worker_id}).second) return;
        log_event(LogLevel::Warn, "worker_quarantined",
                  {{"run", std::to_string(e.run_id)},
                   {"worker", std::to_string(e.worker_id)},
                   {"p", p_value_text(e.p_value)},
                   {"why", "its results fit the rest of the run with p below --quarantine-p"}});
    }
    void operator()(const RunProgressed&) const {}
    void operator()(const WorkerSeen&) const {}
    void operator()(const TrainingEpochDone&) const {}

    std::set<std::pair<int64_t, int64_t>> quarantined;  // runs and workers logged as such
};

}  // namespace

EventBus::Subscription log_events(EventBus& bus) {
    // The bus delivers to one subscriber at a time, so its state needs no lock of its own.
    return bus.subscribe_all(
        [line = std::make_shared<LogLine>()](const Event& event) { std::visit(*line, event); });
}

}  // namespace sparring::coordinator
