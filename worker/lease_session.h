// One lease from grant to end, without a transport: play its pairs, report them in numbered
// reports exactly once (retrying transient failures), heartbeat, stop when the coordinator
// says so or the lease expires, and hand it back on shutdown, refusal or engine failure.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sparring/v1/worker.pb.h"
#include "worker/clock.h"
#include "worker/engine_builds.h"
#include "worker/retry.h"

namespace sparring::worker {

// The coordinator's calls a lease session makes; the gRPC client implements them.
class LeaseCoordinator {
  public:
    virtual ~LeaseCoordinator() = default;
    virtual CallOutcome report(const v1::ReportResultsRequest& request,
                               v1::ReportResultsResponse* response) = 0;
    virtual CallOutcome heartbeat(const v1::HeartbeatRequest& request,
                                  v1::HeartbeatResponse* response) = 0;
    virtual CallOutcome release(const v1::ReleaseLeaseRequest& request,
                                v1::ReleaseLeaseResponse* response) = 0;
};

// Returns the request that hands a lease back: the reason, a message a person reads, and for a
// bench mismatch or a slow machine what was found here (the version, the bench computed, the
// speed measured). Lease id 0 is the lease the worker holds (its grant could not be read).
v1::ReleaseLeaseRequest release_request(int64_t worker_id, int64_t lease_id,
                                        v1::ReleaseReason reason, const std::string& message,
                                        int64_t version_id = 0, uint64_t computed_bench = 0,
                                        uint64_t measured_nps = 0,
                                        const std::string& build_level = {});

// Receives each finished pair as its report entry.
using PairSink = std::function<void(v1::GamePair&&)>;
// Plays a lease's pairs into a sink until all are played or cancel is set; throws
// std::exception when an engine fails.
using PlayPairs = std::function<void(const PairSink& keep, const std::atomic<bool>& cancel)>;

class LeaseSession {
  public:
    // The most a report carries (a report holds one pair at least, and a pair's PGNs at most
    // 512 KiB): well under the 4 MiB a coordinator receives.
    static constexpr size_t kMaxReportBytes = 3 << 20;

    struct Options {
        int64_t worker_id = 0;
        std::chrono::milliseconds report_interval{2'000};
        std::chrono::milliseconds heartbeat_interval{10'000};
        std::chrono::milliseconds shutdown_grace{15'000};  // to report and hand back on stop
        std::chrono::milliseconds first_backoff{250};
        std::chrono::milliseconds max_backoff{30'000};
        uint64_t seed = 0;  // of the backoff's jitter
    };

    // How play() ended.
    enum class End {
        Done,       // every pair reported
        Stopped,    // the coordinator no longer wants the lease
        Refused,    // a report was refused; the lease was handed back
        Expired,    // nothing acknowledged within the lease's time: the games stopped
        Failed,     // an engine failed; the lease was handed back
        ShutDown,   // finished pairs reported, the rest handed back
        GraceOver,  // shutting down, the grace ran out with results unacknowledged
        // A build of an uploaded engine died of SIGILL (unsupported()); the lease was handed
        // back as needing a CPU this worker lacks, its game not reported.
        Unsupported,
    };

    using Log = std::function<void(const std::string& line)>;

    LeaseSession(const v1::Lease& lease, Options options, LeaseCoordinator& coordinator,
                 Clock& clock, Log log);

    // Plays the lease to its end on a thread of its own, reporting as pairs finish; once.
    End play(const PlayPairs& play_pairs);
    // Hands the lease back, retrying transient failures until the shutdown grace runs out.
    void hand_back(v1::ReleaseReason reason, int64_t version_id, uint64_t computed_bench,
                   const std::string& message, uint64_t measured_nps = 0,
                   const std::string& build_level = {});
    // The build that died of SIGILL when play() ended Unsupported.
    const std::optional<BuildUnsupported>& unsupported() const { return unsupported_; }
    // Scaled clocks: every report says the games were played with this factor, from this
    // speed. Call before play().
    void set_clock(double factor, uint64_t nps) {
        clock_factor_ = factor;
        nps_ = nps;
    }
    // Asks play() to report what is finished and hand back the rest. Thread-safe.
    void shut_down();

  private:
    // Moves the lease's local expiry to what the coordinator acknowledged.
    void extend(int64_t expires_unix_ms);
    // Sends a heartbeat; returns true if the coordinator stopped the lease.
    bool send_heartbeat();
    // Waits for duration on the session's clock.
    void sleep(std::chrono::milliseconds duration);
    // Puts the finished pairs into the next report if one is due (now_or_never: at once).
    void take_report(bool now_or_never);
    // Sends the report in flight and acts on the answer.
    void send_report();
    // Heartbeats when due, and notices the lease's expiry and the end of the shutdown grace.
    void keep_time();
    // Returns when the loop of play() has something to do next, barring events.
    Clock::TimePoint next_wake() const;
    // Hands the lease back if the way play ended asks for it; returns that way.
    End finish(const std::string& play_error, bool shutting_down);

    const v1::Lease& lease_;
    Options options_;
    LeaseCoordinator& coordinator_;
    Clock& clock_;
    Log log_;
    std::optional<Clock::TimePoint> expires_at_;  // on this machine's steady clock
    std::atomic<bool> cancel_{false};             // the games abandon the lease
    double clock_factor_ = 0;                     // set_clock's; 0: the clock as it is
    uint64_t nps_ = 0;

    // The state of play(), touched only by its thread.
    uint32_t sequence_ = 0;
    std::optional<v1::ReportResultsRequest> in_flight_;  // kept until acknowledged
    Clock::TimePoint retry_at_;                          // of the report in flight
    Clock::TimePoint last_report_;
    Clock::TimePoint next_heartbeat_;
    std::optional<Clock::TimePoint> give_up_;  // set once shutting down
    Backoff backoff_;
    std::optional<End> end_;  // set when the lease is abandoned: nothing more is reported
    std::string refusal_;     // why a report was refused, for the hand-back
    std::optional<BuildUnsupported> unsupported_;  // a build that died of SIGILL in play
    // Past the lease's time the games stop, but finished pairs are still reported: a
    // coordinator that was down rather than cut off resumes its leases when it restarts.
    bool expired_ = false;
    bool kept_after_expiry_ = false;  // a report was acknowledged after the expiry

    std::mutex mutex_;
    std::condition_variable wake_;
    uint64_t events_ = 0;                 // counts pairs, the end of play and shutdown
    std::vector<v1::GamePair> finished_;  // played, not yet in a report
    bool play_done_ = false;
    bool shutdown_ = false;
};

}  // namespace sparring::worker
