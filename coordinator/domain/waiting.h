// Why a run waits: each active run with pairs left to lease, against each connected worker,
// says why that worker does not play it (scheduler.h's Decline, then what the coordinator
// learnt of the worker in the run: quarantined, too slow; then the runs it plays instead), the
// reasons counted over the workers. Computed when read (show, runs, the pages, the metrics),
// never on a worker's call for work.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// One reason a run waits, counted over the connected workers.
struct WaitingReason {
    WaitReason reason = WaitReason::NoWorkers;
    std::string text;      // the run's side: "no /usr/games/glaurung"
    uint32_t workers = 0;  // the connected workers declining the run so
    std::string fix;       // what would let a worker play it
};

// Why a run waits.
struct RunWaiting {
    std::vector<WaitingReason> reasons;  // most workers first
    uint32_t connected = 0;              // workers connected now
    bool unplayable = false;             // no connected worker could play it
};

// A connected worker as the reasons see it.
struct ConnectedWorker {
    int64_t id = 0;
    WorkerProfile profile;
    int64_t run_id = 0;               // the run it plays now; 0: idle
    int run_priority = 0;             // that run's priority
    std::vector<WorkerSpeed> speeds;  // measured for scaled clocks
};

// An active run with pairs left to lease, as the reasons see it.
struct WaitingRun {
    RunCandidate candidate;
    int64_t test_id = 0;
    uint64_t reference_nps = 0;     // scaled clocks; 0: raw
    bool served = false;            // it has leases out
    std::set<int64_t> quarantined;  // workers quarantined in it
};

// The clock factors a worker may play with, and how long a measured speed counts.
struct SpeedRule {
    double min_factor = 0.25;
    double max_factor = 4.0;
    int64_t max_age_ms = 3'600'000;
    int64_t now_ms = 0;
};

// Returns why the worker does not play the run (a run it plays: nullopt; an idle worker that
// could: nullopt; a busy worker only while the run has no leases out, else it shares).
std::optional<Decline> worker_declines(const WaitingRun& run, const ConnectedWorker& worker,
                                       const SpeedRule& rule);

// Returns why a run waits, from the workers connected now.
RunWaiting run_waiting(const WaitingRun& run, std::span<const ConnectedWorker> workers,
                       const SpeedRule& rule);

// Returns what lets a worker play a run that waits for a reason.
std::string waiting_fix(const WaitingRun& run, WaitReason reason, const std::string& text);

// Returns one line of a reason: "2 of 3 workers: no /usr/games/glaurung (start one with
// `--uci-engines /usr/games/glaurung`)".
std::string waiting_line(const WaitingReason& reason, uint32_t connected);

// What a read of the runs and workers computes the reasons from: the connected workers and the
// active runs with pairs to lease, read once (Core::waiting_board).
struct WaitingBoard {
    std::vector<ConnectedWorker> workers;  // by id
    std::map<int64_t, WaitingRun> runs;    // by run id
    SpeedRule rule;

    // Returns why a run waits (no reasons: not active, or nothing left to lease).
    RunWaiting of(int64_t run_id) const;
    // Returns the active runs a connected worker cannot play, and why (not those it leaves to
    // the runs it plays).
    std::vector<DeclinedRun> declined_by(int64_t worker_id) const;
};

}  // namespace sparring::coordinator
