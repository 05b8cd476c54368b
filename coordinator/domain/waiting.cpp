#include "coordinator/domain/waiting.h"

#include <algorithm>
#include <cstdio>

namespace sparring::coordinator {

std::optional<Decline> worker_declines(const WaitingRun& run, const ConnectedWorker& worker,
                                       const SpeedRule& rule) {
    const int64_t run_id = run.candidate.run_id;
    if (worker.run_id == run_id) return std::nullopt;
    if (std::optional<Decline> d = decline(run.candidate, worker.profile)) return d;
    if (run.quarantined.contains(worker.id))
        return Decline{WaitReason::Quarantined,
                       "quarantined in the run (its results do not fit the rest's)",
                       "quarantined (results unlike the rest's)"};
    if (run.reference_nps > 0)
        for (const WorkerSpeed& speed : worker.speeds) {
            if (speed.version_id != run.test_id || speed.nps == 0 ||
                rule.now_ms - speed.measured_ms >= rule.max_age_ms)
                continue;
            const double factor = double(run.reference_nps) / double(speed.nps);
            if (factor >= rule.min_factor && factor <= rule.max_factor) break;
            const bool slow = factor > rule.max_factor;
            return Decline{
                WaitReason::TooSlow,
                std::string(slow ? "too slow" : "too fast") +
                    " for the run: " + std::to_string(speed.nps) +
                    " nodes/s against its reference " + std::to_string(run.reference_nps),
                std::string(slow ? "too slow" : "too fast") + " for the run's reference speed of " +
                    std::to_string(run.reference_nps) + " nodes/s"};
        }
    // A worker playing another run while this one has leases out shares the cores as the
    // scheduler wants; while it has none, the run waits for them.
    if (worker.run_id != 0 && !run.served) {
        if (worker.run_priority > run.candidate.priority)
            return Decline{WaitReason::Outranked,
                           "plays run " + std::to_string(worker.run_id) + " of priority " +
                               std::to_string(worker.run_priority),
                           "busy with runs of higher priority"};
        return Decline{WaitReason::Busy, "plays run " + std::to_string(worker.run_id),
                       "busy with other runs (shared per user, then by throughput)"};
    }
    return std::nullopt;
}

std::string waiting_fix(const WaitingRun& run, WaitReason reason, const std::string& text) {
    switch (reason) {
        case WaitReason::NoWorkers:
            return "start one: sparring-worker --coordinator HOST:PORT --token-file FILE";
        case WaitReason::NoEngine: {
            // The text is "no COMMAND".
            const std::string command = text.starts_with("no ") ? text.substr(3) : text;
            return "start one with `--uci-engines " + command + "`";
        }
        case WaitReason::NoUploads:
            return "start one with `--accept-uploaded-engines` where bubblewrap works";
        case WaitReason::FewCores:
            return "start one with `--concurrency " + std::to_string(run.candidate.threads) +
                   "` or more";
        case WaitReason::Memory:
            return "start one with more `--memory-mb`, or lower the engines' Hash";
        case WaitReason::TooSlow:
            return "add workers near the reference speed, or submit the run with another "
                   "`--reference-nps`";
        case WaitReason::Quarantined:
            return "see the workers' fits in `sparring show " +
                   std::to_string(run.candidate.run_id) + "`; add other workers";
        case WaitReason::Barred:
            return "add other workers";
        case WaitReason::Failed:
            return "see the lease failures in `sparring show " +
                   std::to_string(run.candidate.run_id) + "`";
        case WaitReason::RefusedVersion:
            return "check the version's bench (`sparring versions`)";
        case WaitReason::Outranked:
            return "wait, or raise the run's priority (`sparring modify --priority`)";
        case WaitReason::Busy:
            return "wait, start more workers, or raise its priority (`sparring modify "
                   "--priority`); its throughput shares cores among its owner's own runs";
        case WaitReason::NoBuild:
            return "add the engine as a version with a build their CPUs run (`sparring versions "
                   "add NAME --engine-file FILE:LEVEL`, no level for a portable one), or start "
                   "workers whose CPUs run a build";
        case WaitReason::NodesOnly:
            return "start a worker without `--only-fixed-nodes`, or submit the run at `--tc "
                   "nodes=N` or `depth=N`";
        case WaitReason::Threads:
            return "start a worker whose `--min-threads`/`--max-threads` take " +
                   std::to_string(run.candidate.threads) +
                   " threads, or submit the run with other "
                   "`--engine-threads`";
    }
    return {};
}

RunWaiting run_waiting(const WaitingRun& run, std::span<const ConnectedWorker> workers,
                       const SpeedRule& rule) {
    RunWaiting waiting;
    waiting.connected = uint32_t(workers.size());
    if (workers.empty()) {
        waiting.unplayable = true;
        WaitingReason none{WaitReason::NoWorkers, "no connected worker", 0, {}};
        none.fix = waiting_fix(run, none.reason, none.text);
        waiting.reasons.push_back(std::move(none));
        return waiting;
    }
    uint32_t declined = 0;
    for (const ConnectedWorker& worker : workers) {
        std::optional<Decline> d = worker_declines(run, worker, rule);
        if (!d) continue;
        if (d->reason != WaitReason::Outranked && d->reason != WaitReason::Busy) ++declined;
        auto same = std::find_if(
            waiting.reasons.begin(), waiting.reasons.end(),
            [&d](const WaitingReason& r) { return r.reason == d->reason && r.text == d->need; });
        if (same == waiting.reasons.end()) {
            WaitingReason reason{d->reason, d->need, 0, {}};
            reason.fix = waiting_fix(run, reason.reason, reason.text);
            same = waiting.reasons.insert(waiting.reasons.end(), std::move(reason));
        }
        ++same->workers;
    }
    waiting.unplayable = declined == workers.size();
    std::stable_sort(
        waiting.reasons.begin(), waiting.reasons.end(),
        [](const WaitingReason& a, const WaitingReason& b) { return a.workers > b.workers; });
    return waiting;
}

std::string waiting_line(const WaitingReason& reason, uint32_t connected) {
    std::string line;
    if (reason.reason == WaitReason::NoWorkers) {
        line = reason.text;
    } else if (reason.workers == connected && reason.reason == WaitReason::NoEngine) {
        // "no X": no connected worker offers X.
        line = "no connected worker offers " + reason.text.substr(3) + " (" +
               std::to_string(connected) + (connected == 1 ? " worker" : " workers") +
               (reason.fix.empty() ? "" : "; " + reason.fix) + ")";
        return line;
    } else if (reason.workers == connected)
        line = (connected == 1 ? std::string("the only worker")
                               : "all " + std::to_string(connected) + " workers") +
               ": " + reason.text;
    else
        line = std::to_string(reason.workers) + " of " + std::to_string(connected) +
               " workers: " + reason.text;
    if (!reason.fix.empty()) line += " (" + reason.fix + ")";
    return line;
}

RunWaiting WaitingBoard::of(int64_t run_id) const {
    const auto run = runs.find(run_id);
    if (run == runs.end()) return {};
    return run_waiting(run->second, workers, rule);
}

std::vector<DeclinedRun> WaitingBoard::declined_by(int64_t worker_id) const {
    std::vector<DeclinedRun> declined;
    const auto worker =
        std::lower_bound(workers.begin(), workers.end(), worker_id,
                         [](const ConnectedWorker& w, int64_t id) { return w.id < id; });
    if (worker == workers.end() || worker->id != worker_id) return declined;
    for (const auto& [id, run] : runs)
        if (std::optional<Decline> d = worker_declines(run, *worker, rule);
            d && d->reason != WaitReason::Busy && d->reason != WaitReason::Outranked)
            declined.push_back({id, wait_reason_name(d->reason), std::move(d->text)});
    return declined;
}

}  // namespace sparring::coordinator
