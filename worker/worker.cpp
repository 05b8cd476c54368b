#include "worker/worker.h"

#include <cstdio>
#include <optional>
#include <random>
#include <utility>

#include "common/log.h"
#include "common/numbers.h"
#include "common/printable.h"
#include "match/bench_run.h"
#include "match/engine_options.h"
#include "match/speed.h"
#include "worker/lease_kinds.h"
#include "worker/match_setup.h"
#include "worker/signature.h"

namespace sparring::worker {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{250};

}  // namespace

Worker::Worker(Options options)
    : options_(std::move(options)),
      coordinator_(options_.endpoint, options_.rpc_timeout),
      url_fetcher_(options_.endpoint.token, options_.endpoint.tls_ca_file),
      run_backoff_(options_.first_run_backoff, options_.max_run_backoff, std::random_device{}()),
      unreadable_backoff_(options_.first_run_backoff, options_.max_run_backoff,
                          std::random_device{}()) {
    if (options_.accept_uploaded_engines)
        cache_ = std::make_unique<EngineCache>(
            EngineCache::Options{.dir = options_.cache_dir, .max_bytes = options_.cache_bytes},
            std::vector<EngineCache::Source>{
                {"HTTP",
                 [this](const std::string& sha256, uint64_t offset,
                        const std::function<bool(std::string_view)>& write) {
                     return url_fetcher_.fetch(sha256, offset, write);
                 }},
                {"gRPC", [this](const std::string& sha256, uint64_t offset,
                                const std::function<bool(std::string_view)>&
                                    write) { return fetch_engine(sha256, offset, write); }}},
            [this](const std::string& line) { log(line); });
}

Worker::~Worker() = default;

void Worker::log(const std::string& line) const {
    if (const int64_t id = worker_id_)
        log_event(LogLevel::Info, "worker",
                  {{"name", options_.name}, {"worker", std::to_string(id)}, {"message", line}});
    else
        log_event(LogLevel::Info, "worker", {{"name", options_.name}, {"message", line}});
}

void Worker::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        if (session_) session_->shut_down();
    }
    wake_.notify_all();
}

bool Worker::sleep_for(milliseconds duration) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, duration, [this] { return stopping_.load(); });
}

template <typename Call>
grpc::Status Worker::with_retry(Call call) {
    Backoff backoff(kFirstBackoff, options_.max_backoff, std::random_device{}());
    grpc::Status status;
    retry_transient(
        [&] {
            CallOutcome outcome;
            status = call(&outcome);
            return outcome;
        },
        backoff,
        [&](const CallOutcome& failure, milliseconds delay) {
            log("coordinator unreachable (" + failure.error + "), retrying");
            return sleep_for(delay);
        });
    return status;
}

bool Worker::register_worker() {
    v1::RegisterRequest request;
    request.set_name(valid_utf8(options_.name));
    request.set_cores(std::max(1u, std::thread::hardware_concurrency()));
    request.set_memory_mb(uint64_t(std::max<int64_t>(0, options_.memory_mb)));
    request.set_concurrency(uint32_t(options_.concurrency));
    for (const std::string& engine : options_.uci_engines)
        request.add_uci_engines(valid_utf8(engine));
    request.set_build("sparring-worker " SPARRING_VERSION);
    request.set_accept_uploaded_engines(options_.accept_uploaded_engines);
    *request.mutable_controls() = options_.controls;
    *request.mutable_identity() = options_.identity;
    v1::RegisterResponse response;
    const grpc::Status status = with_retry([&](CallOutcome* outcome) {
        return coordinator_.call(&v1::WorkerService::Stub::Register, request, &response, outcome);
    });
    if (!status.ok()) {
        if (!stopping_) log("registration refused: " + rpc::describe(status));
        return false;
    }
    worker_id_ = response.worker_id();
    heartbeat_ms_ = std::max<int64_t>(100, response.heartbeat_interval_ms());
    log("registered, concurrency " + std::to_string(options_.concurrency));
    if (cache_) {
        const std::optional<EngineBase> base =
            engine_base(response, options_.endpoint.address, options_.engine_url);
        url_fetcher_.set_base(base);
        log(base ? "engine files by URL from " + base->url +
                       (base->send_token ? " (the coordinator: with the worker token)"
                                         : " (external: no token sent)") +
                       ", gRPC as the fallback"
                 : "engine files over gRPC");
    }
    return true;
}

void Worker::refuse_unreadable_lease(const grpc::Status& status) {
    const std::string why =
        "lease larger than this worker's receive limit (" + rpc::describe(status) + ")";
    // Lease 0: the lease this worker holds, whose id is in the unread grant.
    const v1::ReleaseLeaseRequest request =
        release_request(worker_id_, 0, v1::RELEASE_REASON_ENGINE_FAILURE, why);
    v1::ReleaseLeaseResponse response;
    const grpc::Status released = with_retry([&](CallOutcome* outcome) {
        return coordinator_.call(&v1::WorkerService::Stub::ReleaseLease, request, &response,
                                 outcome);
    });
    const milliseconds delay = unreadable_backoff_.next();
    log("refused a " + why + (released.ok() ? "; handed it back" : "; it will expire") +
        "; asking for work again in " + std::to_string(delay.count()) + " ms");
    sleep_for(delay);
}

int Worker::run() {
    if (!register_worker()) return stopping_ ? 0 : 1;
    std::thread heartbeats([this] { heartbeat_loop(); });
    Clock::TimePoint idle_since = clock_.now();  // since the last lease ended (--exit-when-idle)
    while (!stopping_) {
        v1::RequestWorkRequest request;
        request.set_worker_id(worker_id_);
        for (int64_t run : run_backoff_.avoided(clock_.now())) request.add_avoid_run_ids(run);
        v1::RequestWorkResponse response;
        const grpc::Status status = with_retry([&](CallOutcome* outcome) {
            return coordinator_.call(&v1::WorkerService::Stub::RequestWork, request, &response,
                                     outcome);
        });
        if (stopping_) break;
        if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
            log("the coordinator forgot this worker; registering again");
            if (!register_worker()) break;
            continue;
        }
        if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
            status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
            log("refused: " + rpc::describe(status));
            exit_status_ = 1;
            break;
        }
        if (is_message_too_large(status)) {
            refuse_unreadable_lease(status);
            continue;
        }
        if (!status.ok()) {
            log("work request failed: " + rpc::describe(status));
            sleep_for(options_.max_backoff);
            continue;
        }
        if (!response.has_lease()) {
            milliseconds wait(std::max<uint32_t>(100, response.retry_after_ms()));
            if (idle_too_long(idle_since, &wait)) break;
            sleep_for(wait);
            continue;
        }
        unreadable_backoff_.reset();
        const v1::Lease& lease = response.lease();
        if (const auto until = run_backoff_.avoided_until(lease.run_id(), clock_.now())) {
            // A coordinator that does not know avoid_run_ids had nothing else for us.
            const v1::ReleaseLeaseRequest release =
                release_request(worker_id_, lease.lease_id(), v1::RELEASE_REASON_ENGINE_FAILURE,
                                "backing off run " + std::to_string(lease.run_id()) + " after " +
                                    std::to_string(run_backoff_.failures(lease.run_id())) +
                                    " failed leases on " + options_.name);
            v1::ReleaseLeaseResponse released;
            with_retry([&](CallOutcome* outcome) {
                return coordinator_.call(&v1::WorkerService::Stub::ReleaseLease, release, &released,
                                         outcome);
            });
            sleep_for(std::chrono::duration_cast<milliseconds>(*until - clock_.now()));
            continue;
        }
        const bool served = serve_lease(lease);
        idle_since = clock_.now();
        if (served) {
            run_backoff_.succeeded(lease.run_id());
        } else if (!stopping_) {
            const milliseconds delay = run_backoff_.failed(lease.run_id(), clock_.now());
            log("run " + std::to_string(lease.run_id()) + ": " +
                std::to_string(run_backoff_.failures(lease.run_id())) +
                " failed leases in a row here; avoiding it for " + std::to_string(delay.count()) +
                " ms");
        }
    }
    finished_ = true;
    wake_.notify_all();
    heartbeats.join();
    log("stopped");
    return exit_status_;
}

EngineCache::FetchResult Worker::fetch_engine(const std::string& sha256, uint64_t offset,
                                              const std::function<bool(std::string_view)>& write) {
    v1::FetchEngineRequest request;
    request.set_worker_id(worker_id_);
    request.set_sha256(sha256);
    request.set_offset(offset);
    return coordinator_.fetch_engine(request, write);
}

bool Worker::prepare_engines(const v1::Lease& lease, LeaseSession& session, EnginePaths* engines) {
    for (const v1::Version* version : {&lease.test(), &lease.base()}) {
        if (!version->has_uploaded()) continue;
        std::string error = "this worker does not accept uploaded engines";
        std::optional<std::string> path;
        if (cache_) path = cache_->executable(version->uploaded(), &error);
        if (!path) {
            log("cannot play version '" + version->name() + "': " + error);
            session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
            return false;
        }
        (*engines)[version->uploaded().sha256()] = *path;
    }
    return true;
}

void Worker::remember_refusal(const BuildUnsupported& build) {
    log(std::string(build.what()) + "; this worker plays that build no more");
    refused_builds_[build.version_id].push_back(build.level);
    // What was learnt of the version here came from that build.
    signatures_.erase(build.version_id);
    bench_errors_.erase(build.version_id);
    option_differences_.erase(build.version_id);
}

void Worker::refuse_build(const v1::Version& version, const std::string& error,
                          LeaseSession& session) {
    const BuildUnsupported build(version.id(), build_of(version),
                                 "the " + build_of(version) + " build of version '" +
                                     version.name() + "' needs a CPU " + options_.name +
                                     " lacks: " + error);
    remember_refusal(build);
    session.hand_back(v1::RELEASE_REASON_CPU_UNSUPPORTED, build.version_id, 0, build.what(), 0,
                      build.level);
    declined_ = true;  // not a failure of the run: the coordinator leases that build no more
}

bool Worker::probe_builds(const v1::Lease& lease, LeaseSession& session,
                          const EnginePaths& engines) {
    for (const v1::Version* version : {&lease.test(), &lease.base()}) {
        if (!version->has_uploaded() || probed_builds_.count(version->uploaded().sha256()))
            continue;
        // Its first start here: a build for a CPU this one is not dies of SIGILL at once, or in
        // the bench that follows.
        std::string error;
        std::optional<match::UciSpec> engine =
            confined_engine(*version, options_.engine_limits, engines, &error);
        if (engine && match::read_engine_options(*engine, 10'000, &error)) {
            probed_builds_.insert(version->uploaded().sha256());
            continue;
        }
        if (match::died_of_sigill(error)) {
            refuse_build(*version, error, session);
            return false;
        }
        log("cannot start version '" + version->name() + "': " + error);
        session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
        return false;
    }
    return true;
}

bool Worker::verify_options(const v1::Version& version, LeaseSession& session,
                            const EnginePaths& engines) {
    auto known = option_differences_.find(version.id());
    if (known == option_differences_.end()) {
        std::string error;
        const std::optional<std::string> difference =
            engine_options_difference(version, engines, options_.engine_limits, &error);
        if (!difference) {
            log("cannot read the options of version '" + version.name() + "': " + error);
            session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
            return false;
        }
        known = option_differences_.emplace(version.id(), *difference).first;
    }
    if (known->second.empty()) return true;
    // Refused as a bench mismatch is: the coordinator records it and sends the version here
    // no more.
    log("version '" + version.name() + "': its engine declares other options here (" +
        known->second + "); refusing it");
    session.hand_back(v1::RELEASE_REASON_BENCH_MISMATCH, version.id(), 0,
                      "engine options differ on " + options_.name + ": " + known->second);
    return false;
}

bool Worker::verify_versions(const v1::Lease& lease, LeaseSession& session,
                             const EnginePaths& engines) {
    for (const v1::Version* version : {&lease.test(), &lease.base()}) {
        if (version->has_uci() &&
            std::find(options_.uci_engines.begin(), options_.uci_engines.end(),
                      version->uci().command()) == options_.uci_engines.end()) {
            session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0,
                              "this worker does not offer " + version->uci().command());
            return false;
        }
        if (!version->options().empty() && !verify_options(*version, session, engines))
            return false;
        if (version->bench() == 0) continue;
        if (!signatures_.count(version->id())) {
            const Signature signature = signature_of(*version, options_.bench, engines);
            if (signature.illegal_instruction) {
                refuse_build(*version, signature.error, session);
                return false;
            }
            if (signature.status == Signature::Status::Error) {
                session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, signature.error);
                return false;
            }
            // An engine that hangs in its bench, fails or prints no count has no signature
            // here: that is a mismatch (computed 0), and the coordinator stops sending it.
            if (signature.status == Signature::Status::NoSignature)
                bench_errors_[version->id()] = signature.error;
            if (signature.cached)
                log("version '" + version->name() + "': bench " + std::to_string(signature.nodes) +
                    " read from the bench cache");
            signatures_[version->id()] = signature.nodes;
        }
        const uint64_t computed = signatures_[version->id()];
        if (computed != version->bench()) {
            const auto error = bench_errors_.find(version->id());
            const std::string why = error == bench_errors_.end() ? "" : ": " + error->second;
            log("version '" + version->name() + "' has bench " + std::to_string(version->bench()) +
                " but this machine computes " + std::to_string(computed) + why + "; refusing it");
            session.hand_back(v1::RELEASE_REASON_BENCH_MISMATCH, version->id(), computed,
                              "bench mismatch on " + options_.name + why);
            return false;
        }
    }
    return true;
}

std::optional<PlayPairs> Worker::player_of(const v1::Lease& lease, LeaseSession& session,
                                           const EnginePaths& engines) {
    std::string error;
    const auto refuse = [&] {
        session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
        return std::nullopt;
    };
    const LeaseKind& kind = lease_kind(lease);
    std::optional<match::MatchConfig> config;
    if (kind.is_match) {
        config = match_config(lease, options_.concurrency, options_.name, &error,
                              options_.engine_limits, engines);
        if (!config) return refuse();
        if (!scale_clock(lease, session, *config)) return std::nullopt;
    }
    std::optional<PlayPairs> play =
        kind.player(lease, config ? &*config : nullptr, options_.concurrency, &error);
    if (!play) return refuse();
    return play;
}

bool Worker::scale_clock(const v1::Lease& lease, LeaseSession& session,
                         match::MatchConfig& config) {
    if (lease.reference_nps() == 0 || config.time_control.kind != TimeControl::Kind::Clock)
        return true;
    const std::pair<int64_t, int> key(lease.test().id(), config.concurrency);
    auto known = speeds_.find(key);
    if (known == speeds_.end() || clock_.now() - known->second.at >= options_.speed_every) {
        log("measuring this machine's speed with '" + lease.test().name() +
            "': " + std::to_string(config.concurrency) + " engines at once");
        match::SpeedOptions how;
        how.copies = config.concurrency;
        how.movetime_ms = options_.speed_movetime_ms;
        const match::Speed speed = match::measure_speed(config.first, how);
        if (speed.nps == 0) {
            const std::string why = "could not measure the speed of '" + lease.test().name() +
                                    "' for its scaled clock: " + speed.error;
            log(why);
            session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, why);
            return false;
        }
        known = speeds_.insert_or_assign(key, MeasuredSpeed{speed.nps, clock_.now()}).first;
        log("'" + lease.test().name() + "' searches " + std::to_string(speed.nps) +
            " nodes per second here");
    }
    const uint64_t nps = known->second.nps;
    const double factor = match::clock_factor(lease.reference_nps(), nps);
    if (!(factor >= lease.min_clock_factor() && factor <= lease.max_clock_factor())) {
        const std::string why =
            options_.name + " searches " + std::to_string(nps) + " nodes per second with '" +
            lease.test().name() + "'; run " + std::to_string(lease.run_id()) + " is defined at " +
            std::to_string(lease.reference_nps()) + ": its clock would be scaled by " +
            fixed(factor, 4) + ", outside " + fixed(lease.min_clock_factor(), 4) + ".." +
            fixed(lease.max_clock_factor(), 4);
        log(why + "; handing the lease back");
        session.hand_back(v1::RELEASE_REASON_TOO_SLOW, 0, 0, why, nps);
        declined_ = true;  // not a failure: the coordinator leases it none of the run now
        return false;
    }
    const std::string tc_before = config.time_control.pgn_tag();
    config.time_control.base_ms = match::scale_ms(config.time_control.base_ms, factor);
    config.time_control.inc_ms = match::scale_ms(config.time_control.inc_ms, factor);
    config.pgn.extra_tags = {{"ClockFactor", fixed(factor, 4)},
                             {"ReferenceTimeControl", tc_before},
                             {"WorkerNps", std::to_string(nps)}};
    session.set_clock(factor, nps);
    log("lease " + std::to_string(lease.lease_id()) + ": clock " + tc_before + " scaled by " +
        fixed(factor, 4) + " to " + config.time_control.pgn_tag());
    return true;
}

bool Worker::serve_lease(const v1::Lease& leased) {
    // Each uploaded version as the build this CPU plays (issue 52).
    v1::Lease lease = leased;
    const std::vector<std::string> cpu_levels(options_.identity.isa_levels().begin(),
                                              options_.identity.isa_levels().end());
    const std::string no_build = choose_builds(lease, cpu_levels, refused_builds_);
    const LeaseKind& kind = lease_kind(lease);
    log("lease " + std::to_string(lease.lease_id()) + ": run " + std::to_string(lease.run_id()) +
        ", " + std::to_string(kind.pairs(lease)) + " pairs, " + kind.plays(lease));
    LeaseSession::Options options;
    options.worker_id = worker_id_;
    options.report_interval = options_.report_interval;
    options.heartbeat_interval = milliseconds(heartbeat_ms_.load());
    options.shutdown_grace = options_.shutdown_grace;
    options.first_backoff = kFirstBackoff;
    options.max_backoff = options_.max_backoff;
    options.seed = std::random_device{}();
    LeaseSession session(lease, options, coordinator_, clock_,
                         [this](const std::string& line) { log(line); });
    // The scheduler counted the hash tables against the memory this worker registered; the
    // worker holds to it whatever a lease asks (a version stored before the checks compared
    // spellings, a coordinator that miscounts). Refused, not capped: a smaller table would
    // play another test than the one submitted.
    if (const std::string why = memory_refusal(lease, options_.concurrency, options_.memory_mb);
        !why.empty()) {
        log("lease " + std::to_string(lease.lease_id()) + ": " + why + "; refusing it");
        session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0,
                          "refused on " + options_.name + ": " + why);
        return false;
    }
    if (!no_build.empty()) {
        log("lease " + std::to_string(lease.lease_id()) + ": " + no_build + "; refusing it");
        session.hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0,
                          "refused on " + options_.name + ": " + no_build);
        return false;
    }
    // A broken download is retried after the run's backoff (the next lease of the run).
    EnginePaths engines;
    if (!prepare_engines(lease, session, &engines)) return false;
    if (!probe_builds(lease, session, engines)) return std::exchange(declined_, false);
    if (!verify_versions(lease, session, engines)) return std::exchange(declined_, false);
    const std::optional<PlayPairs> play = player_of(lease, session, engines);
    if (!play) return std::exchange(declined_, false);
    {
        std::lock_guard lock(mutex_);
        session_ = &session;
        if (stopping_) session.shut_down();
    }
    const LeaseSession::End end = session.play(*play);
    if (end == LeaseSession::End::Unsupported) remember_refusal(*session.unsupported());
    std::lock_guard lock(mutex_);
    session_ = nullptr;
    return end != LeaseSession::End::Failed && end != LeaseSession::End::Refused;
}

bool Worker::idle_too_long(Clock::TimePoint idle_since, milliseconds* wait) const {
    if (options_.exit_when_idle.count() <= 0) return false;
    const auto idle = std::chrono::duration_cast<milliseconds>(clock_.now() - idle_since);
    if (idle < options_.exit_when_idle) {
        *wait = std::max(milliseconds(1), std::min(*wait, options_.exit_when_idle - idle));
        return false;
    }
    log_event(LogLevel::Info, "idle_exit",
              {{"name", options_.name},
               {"worker", std::to_string(worker_id_.load())},
               {"idle_seconds", std::to_string(idle.count() / 1000)},
               {"message", "no lease for " + std::to_string(options_.exit_when_idle.count()) +
                               " s (--exit-when-idle): exiting"}});
    return true;
}

void Worker::heartbeat_loop() {
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            if (wake_.wait_for(lock, milliseconds(heartbeat_ms_.load()),
                               [this] { return finished_.load(); }))
                return;
            if (session_) continue;  // the session heartbeats for its lease
        }
        v1::HeartbeatRequest request;
        request.set_worker_id(worker_id_);
        v1::HeartbeatResponse response;
        coordinator_.heartbeat(request, &response);
    }
}

}  // namespace sparring::worker
