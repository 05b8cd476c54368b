// The coordinator's domain events: what the core did, as plain values, and the bus that hands
// them to subscribers (the log, the metrics, the trainer; later the dashboard's live updates).
//
// The core publishes an event through Core::publish, which defers it until the transaction
// doing the work has committed: a job that fails, or a transaction that rolls back, publishes
// nothing. The write executor then delivers a committed batch's events, in commit order, on a
// thread of its own (never the writer's), before it finishes the batch's calls; so a client
// that has its reply finds the event logged and counted. Subscribers run on that thread and
// must be quick: one that has slow work to do hands it off (wakes a thread of its own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

// A version was added (AddVersion, or a version a tuning or a training made).
struct VersionAdded {
    std::string name;
    uint64_t bench = 0;
};

// A run was created: submitted by a user, started by a chain or a tuning's verification, or
// made by the first chunk of an import.
struct RunSubmitted {
    int64_t run_id = 0;
    RunKind kind = RunKind::Regression;
    std::string test;  // test version
    std::string base;  // base version
    uint64_t games = 0;
    std::string owner;  // the user who submitted it (a started run: its parent's owner)
};

// A report added games to an active run: its totals and statistics after the report (a purge
// took games away: then no worker and nothing reported).
struct RunProgressed {
    int64_t run_id = 0;
    Counts counts;
    stats::EloEstimate elo;
    double llr = 0;  // regression runs: the SPRT's log-likelihood ratio
    // What the live page shows besides (web/live_runs.h): the run's pairs out on lease and its
    // leases, after the report; the worker that reported and what its report counted.
    uint64_t pairs_leased = 0;
    int active_leases = 0;
    int64_t worker_id = 0;
    Counts reported;
};

// A user asked for an active run to stop (a RunFinished with state Stopped follows).
struct RunStopRequested {
    int64_t run_id = 0;
    std::string requested_by;  // the caller's peer address, when known
    std::string user;          // the token's name, when a user asked
};

// A user changed a run after its submission (sparring modify); a stop is a RunStopRequested.
struct RunModified {
    int64_t run_id = 0;
    std::string user;                // the token's name
    std::vector<RunChange> changes;  // each field changed, with its old and new value
    std::string peer;                // the caller's peer address, when known
};

// A run ended: SPRT verdict, game limit, completed work, a stop, or a failed training.
struct RunFinished {
    int64_t run_id = 0;
    RunKind kind = RunKind::Regression;
    RunState state = RunState::Finished;
    std::string result;
    Counts counts;
    stats::EloEstimate elo;
    double llr = 0;
};

// The coordinator paused a run: its faulty games passed its fault bound (see FaultPause).
struct RunPaused {
    int64_t run_id = 0;
    FaultPause pause;
};

// A paused run was made active again (sparring resume), by its owner or an admin.
struct RunResumed {
    int64_t run_id = 0;
    std::string user;
    std::string peer;
};

// A worker process registered.
struct WorkerRegistered {
    Worker worker;
    std::string peer;  // the caller's peer address, when known
};

// A registered worker made a call (work request, report, heartbeat or release).
struct WorkerSeen {
    int64_t worker_id = 0;
    int64_t time_ms = 0;
};

// A worker was leased pairs of a run (not published when a lost reply re-sends a lease).
struct LeaseGranted {
    int64_t lease_id = 0;
    int64_t worker_id = 0;
    int64_t run_id = 0;
    uint32_t pairs = 0;
};

// A lease ran out of time without a heartbeat or report; its unreported pairs went back to
// the run's pool.
struct LeaseExpired {
    int64_t lease_id = 0;
    int64_t worker_id = 0;
    int64_t run_id = 0;
    uint32_t pairs_returned = 0;
};

// A worker handed a lease back (shutdown, bench mismatch, engine failure).
struct LeaseReleased {
    int64_t lease_id = 0;
    int64_t worker_id = 0;
    int64_t run_id = 0;
    Release::Reason reason = Release::Reason::Shutdown;
    uint32_t pairs_returned = 0;  // pairs that went back to an active run's pool
    std::string message;
};

// A result report was acknowledged: counted, or recognised as a retry (duplicate) and
// acknowledged without counting again.
struct ReportCounted {
    int64_t worker_id = 0;
    int64_t lease_id = 0;
    int64_t run_id = 0;
    uint32_t sequence = 0;
    int64_t games = 0;
    bool duplicate = false;
};

// An epoch of a training run was recorded (epoch 0: the training started or restarted).
struct TrainingEpochDone {
    int64_t run_id = 0;
    int epoch = 0;
    double loss = 0;  // mean squared error after the epoch; 0 for epoch 0
};

// A user removed a worker's games from a run's totals (sparring purge).
struct WorkerPurged {
    int64_t run_id = 0;
    int64_t worker_id = 0;
    int64_t games = 0;      // the games that no longer count
    std::string purged_by;  // the user token's name
};

// A worker asked for work and was refused a run because its results there fit the rest of
// the run with p below --quarantine-p. Published at each such request; the log keeps only the
// first of each run and worker.
struct WorkerQuarantined {
    int64_t run_id = 0;
    int64_t worker_id = 0;
    double p_value = 1;
};

// One of the events above. A struct (not an alias) so that core.h can declare it.
struct Event : std::variant<VersionAdded, RunSubmitted, RunProgressed, RunStopRequested,
                            RunModified, RunFinished, WorkerRegistered, WorkerSeen, LeaseGranted,
                            LeaseExpired, LeaseReleased, ReportCounted, TrainingEpochDone,
                            WorkerPurged, WorkerQuarantined, RunPaused, RunResumed> {
    using variant::variant;
};

// Hands events to subscribers. Thread-safe: subscribe and unsubscribe from any thread, also
// while events are being delivered; but a subscriber's callback must neither unsubscribe
// itself nor publish (its own delivery holds its lock).
class EventBus {
  public:
    class Subscription;
    using Handler = std::function<void(const Event&)>;

    // Calls handler with every event, on the publishing thread, in publication order.
    [[nodiscard]] Subscription subscribe_all(Handler handler);
    // Calls handler with every event of type T.
    template <typename T>
    [[nodiscard]] Subscription subscribe(std::function<void(const T&)> handler);
    // Delivers an event to every subscriber, on the calling thread.
    void publish(const Event& event);

  private:
    struct Subscriber {
        std::mutex mutex;  // held while delivering, so unsubscribing waits for a delivery
        Handler handler;   // empty once unsubscribed
    };

    std::mutex mutex_;
    std::vector<std::shared_ptr<Subscriber>> subscribers_;
};

// Keeps a subscriber subscribed; destroying (or resetting) it unsubscribes, after which the
// handler is never called again.
class EventBus::Subscription {
  public:
    Subscription() = default;
    Subscription(Subscription&& other) noexcept = default;
    Subscription& operator=(Subscription&& other) noexcept;
    ~Subscription();

    // Unsubscribes; waits for a delivery to this subscriber in progress.
    void reset();

  private:
    friend class EventBus;
    Subscription(EventBus* bus, std::shared_ptr<Subscriber> subscriber)
        : bus_(bus), subscriber_(std::move(subscriber)) {}

    EventBus* bus_ = nullptr;
    std::shared_ptr<Subscriber> subscriber_;
};

template <typename T>
EventBus::Subscription EventBus::subscribe(std::function<void(const T&)> handler) {
    return subscribe_all([handler = std::move(handler)](const Event& event) {
        if (const T* e = std::get_if<T>(&event)) handler(*e);
    });
}

}  // namespace sparring::coordinator
