// The worker process's logic: register, lease work, verify bench signatures, and play each
// lease through a lease session over gRPC; heartbeat while no lease is held.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/connection.h"
#include "sparring/v1/worker.pb.h"
#include "worker/clock.h"
#include "worker/engine_builds.h"
#include "worker/engine_cache.h"
#include "worker/engine_url.h"
#include "worker/grpc_coordinator.h"
#include "worker/lease_session.h"
#include "worker/run_backoff.h"
#include "worker/signature.h"

namespace sparring::worker {

class Worker {
  public:
    struct Options {
        rpc::Endpoint endpoint;
        std::string name;
        int concurrency = 1;
        int64_t memory_mb = 0;
        std::vector<std::string> uci_engines;  // commands this machine can run
        bool accept_uploaded_engines = false;  // fetch and run uploaded engine files
        std::string cache_dir;                 // where they are kept
        uint64_t cache_bytes = uint64_t(2048) << 20;
        // Engines fetched by URL (worker/engine_url.h): empty, the base the coordinator names;
        // "grpc", never by URL; else this base.
        std::string engine_url;
        std::chrono::milliseconds rpc_timeout{10'000};
        std::chrono::milliseconds report_interval{2'000};
        std::chrono::milliseconds max_backoff{30'000};
        std::chrono::milliseconds shutdown_grace{15'000};  // to report and hand back on stop
        BenchOptions bench;  // how UCI engines' bench signatures are computed
        EngineLimits engine_limits;
        std::chrono::milliseconds first_run_backoff{1'000};  // after a run's first failed lease
        std::chrono::milliseconds max_run_backoff{300'000};
        // Scaled clocks: how long a speed measured with an engine is used before it is
        // measured again, and each position's search time in a measurement.
        std::chrono::seconds speed_every{3600};
        int speed_movetime_ms = 250;
        // The fleet controls registration reports (issue 52): the runs it takes, whose first,
        // its pinning and its exit when idle.
        v1::WorkerControls controls;
        // Exits (status 0) after this long without a lease (0: never): spot fleets.
        std::chrono::seconds exit_when_idle{0};
        // The machine as registration reports it (worker/cpu_identity.h): its isa_levels are
        // the levels this worker claims (--isa-levels), lowest first.
        v1::WorkerIdentity identity;
    };

    // Throws std::runtime_error if the endpoint is unusable (unreadable CA file).
    explicit Worker(Options options);
    ~Worker();

    // Works until stop() or a fatal refusal (bad token); returns the process exit status.
    int run();
    // Asks run() to return: finished pairs are reported and the rest of the lease handed
    // back. Thread-safe.
    void stop();

  private:
    // Calls until success, a permanent failure, or stop, with capped exponential backoff and
    // jitter between transient failures; call makes one attempt: grpc::Status(CallOutcome*).
    template <typename Call>
    grpc::Status with_retry(Call call);
    // Registers the worker; false if stopped first or refused.
    bool register_worker();
    // Plays one lease to its end through a lease session; false when it failed here (an
    // engine, a bench, the lease's content), so that its run is backed off.
    bool serve_lease(const v1::Lease& lease);
    // Hands back the lease the coordinator granted but this worker could not read (larger
    // than its receive limit), and backs off from requesting work.
    void refuse_unreadable_lease(const grpc::Status& status);
    // Returns what plays a lease's pairs: self-play games for a generation lease, the match
    // runner otherwise; hands the lease back and returns nullopt when it cannot be played.
    std::optional<PlayPairs> player_of(const v1::Lease& lease, LeaseSession& session,
                                       const EnginePaths& engines);
    // Fetches (or finds in the cache) the lease's uploaded engines into *engines; hands the
    // lease back and returns false when one cannot be had.
    bool prepare_engines(const v1::Lease& lease, LeaseSession& session, EnginePaths* engines);
    // Streams an engine file from the coordinator from an offset (EngineCache::Fetch).
    EngineCache::FetchResult fetch_engine(const std::string& sha256, uint64_t offset,
                                          const std::function<bool(std::string_view)>& write);
    // Checks both versions' bench signatures and recorded engine options; on a mismatch hands
    // the lease back and returns false.
    bool verify_versions(const v1::Lease& lease, LeaseSession& session, const EnginePaths& engines);
    // Starts each uploaded build of the lease once, the first time this worker plays it (a
    // build needing a CPU this one is not dies of SIGILL); hands the lease back and returns
    // false when one does not start.
    bool probe_builds(const v1::Lease& lease, LeaseSession& session, const EnginePaths& engines);
    // Hands the lease back as needing a CPU this worker lacks (a build of version died of
    // SIGILL here: error) and plays that build no more.
    void refuse_build(const v1::Version& version, const std::string& error, LeaseSession& session);
    // Remembers a build that died of SIGILL here; the next lease takes another build.
    void remember_refusal(const BuildUnsupported& build);
    // Checks that a version's engine declares here the spin options its record holds; hands
    // the lease back (as a bench mismatch) and returns false when it does not.
    bool verify_options(const v1::Version& version, LeaseSession& session,
                        const EnginePaths& engines);
    // Leases with scaled clocks: measures (or recalls) this machine's speed with the test
    // version's engine and multiplies the config's clock by the lease's factor, with the PGN
    // tags and the session's reports saying so; hands the lease back (too slow, or the engine
    // failed its measurement) and returns false when it cannot be played here.
    bool scale_clock(const v1::Lease& lease, LeaseSession& session, match::MatchConfig& config);
    // Returns whether the worker has been without a lease for --exit-when-idle, logging so
    // when it has; *wait is cut to the time left until then.
    bool idle_too_long(Clock::TimePoint idle_since, std::chrono::milliseconds* wait) const;
    // Sends heartbeats while no lease session does, until run() ends.
    void heartbeat_loop();
    // Sleeps up to duration; returns early (false) when stopping.
    bool sleep_for(std::chrono::milliseconds duration);
    // Logs one line as a structured event with the worker's name and id.
    void log(const std::string& line) const;

    Options options_;
    GrpcCoordinator coordinator_;  // every call to the coordinator
    SystemClock clock_;
    std::atomic<int64_t> worker_id_{0};  // read by the heartbeat thread
    std::atomic<int64_t> heartbeat_ms_{10'000};
    std::atomic<bool> stopping_{false};
    std::atomic<bool> finished_{false};  // run() is returning: the heartbeat thread ends
    int exit_status_ = 0;
    std::mutex mutex_;
    std::condition_variable wake_;
    LeaseSession* session_ = nullptr;              // the lease being played; under mutex_
    std::map<int64_t, uint64_t> signatures_;       // version id -> bench computed here
    std::map<int64_t, std::string> bench_errors_;  // version id -> why it gave no signature
    // version id -> how its engine's spin options differ here from its record ("": not)
    std::map<int64_t, std::string> option_differences_;
    EngineUrlFetcher url_fetcher_;         // engine files by URL, the cache's first source
    std::unique_ptr<EngineCache> cache_;   // with accept_uploaded_engines
    RefusedBuilds refused_builds_;         // builds that died of SIGILL here, by version id
    std::set<std::string> probed_builds_;  // SHA-256 of the uploaded builds started here
    struct MeasuredSpeed {
        uint64_t nps = 0;
        Clock::TimePoint at;
    };
    // (test version id, games at once) -> the speed last measured with its engine; run() only
    std::map<std::pair<int64_t, int>, MeasuredSpeed> speeds_;
    bool declined_ = false;       // scale_clock handed the lease back as too slow (not a failure)
    RunBackoff run_backoff_;      // runs whose leases failed here; run() only
    Backoff unreadable_backoff_;  // between leases too large to read
};

}  // namespace sparring::worker
