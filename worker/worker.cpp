#include "worker/worker.h"

#include <optional>
#include <random>

#include "common/log.h"
#include "worker/generate_play.h"
#include "worker/match_setup.h"
#include "worker/signature.h"
#include "worker/tune_play.h"

namespace sparring::worker {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{250};

// Returns a random duration in [d/2, d], so that many workers do not retry in lockstep.
milliseconds jitter(milliseconds d) {
    thread_local std::mt19937 random(std::random_device{}());
    return milliseconds(std::uniform_int_distribution<int64_t>(d.count() / 2, d.count())(random));
}

}  // namespace

Worker::Worker(Options options)
    : options_(std::move(options)),
      channel_(rpc::make_channel(options_.endpoint)),
      stub_(v1::WorkerService::NewStub(channel_)) {}

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
    }
    wake_.notify_all();
}

bool Worker::sleep_for(milliseconds duration) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, duration, [this] { return stopping_.load(); });
}

template <typename Call>
grpc::Status Worker::with_retry(Call call) {
    milliseconds backoff = kFirstBackoff;
    for (;;) {
        grpc::ClientContext context;
        rpc::prepare(context, options_.endpoint.token, options_.rpc_timeout);
        grpc::Status status = call(context);
        if (status.ok() || !rpc::is_transient(status)) return status;
        log("coordinator unreachable (" + rpc::describe(status) + "), retrying");
        if (!sleep_for(jitter(backoff))) return status;
        backoff = std::min(backoff * 2, options_.max_backoff);
    }
}

bool Worker::register_worker() {
    v1::RegisterRequest request;
    request.set_name(options_.name);
    request.set_cores(std::max(1u, std::thread::hardware_concurrency()));
    request.set_memory_mb(uint64_t(std::max<int64_t>(0, options_.memory_mb)));
    request.set_concurrency(uint32_t(options_.concurrency));
    for (const std::string& engine : options_.uci_engines) request.add_uci_engines(engine);
    request.set_build("sparring-worker " SPARRING_VERSION);
    v1::RegisterResponse response;
    const grpc::Status status =
        with_retry([&](grpc::ClientContext& c) { return stub_->Register(&c, request, &response); });
    if (!status.ok()) {
        if (!stopping_) log("registration refused: " + rpc::describe(status));
        return false;
    }
    worker_id_ = response.worker_id();
    heartbeat_ms_ = std::max<int64_t>(100, response.heartbeat_interval_ms());
    log("registered, concurrency " + std::to_string(options_.concurrency));
    return true;
}

int Worker::run() {
    if (!register_worker()) return stopping_ ? 0 : 1;
    std::thread heartbeats([this] { heartbeat_loop(); });
    while (!stopping_) {
        v1::RequestWorkRequest request;
        request.set_worker_id(worker_id_);
        v1::RequestWorkResponse response;
        const grpc::Status status = with_retry(
            [&](grpc::ClientContext& c) { return stub_->RequestWork(&c, request, &response); });
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
        if (!status.ok()) {
            log("work request failed: " + rpc::describe(status));
            sleep_for(options_.max_backoff);
            continue;
        }
        if (!response.has_lease()) {
            sleep_for(milliseconds(std::max<uint32_t>(100, response.retry_after_ms())));
            continue;
        }
        serve_lease(response.lease());
    }
    finished_ = true;
    wake_.notify_all();
    heartbeats.join();
    log("stopped");
    return exit_status_;
}

bool Worker::verify_versions(const v1::Lease& lease) {
    for (const v1::Version* version : {&lease.test(), &lease.base()}) {
        if (version->has_uci() &&
            std::find(options_.uci_engines.begin(), options_.uci_engines.end(),
                      version->uci().command()) == options_.uci_engines.end()) {
            release(lease.lease_id(), v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0,
                    "this worker does not offer " + version->uci().command());
            return false;
        }
        if (version->bench() == 0) continue;
        if (!signatures_.count(version->id())) {
            std::string error;
            const auto signature = compute_signature(*version, &error);
            if (!signature) {
                release(lease.lease_id(), v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
                return false;
            }
            signatures_[version->id()] = *signature;
        }
        const uint64_t computed = signatures_[version->id()];
        if (computed != version->bench()) {
            log("version '" + version->name() + "' has bench " + std::to_string(version->bench()) +
                " but this machine computes " + std::to_string(computed) + "; refusing it");
            release(lease.lease_id(), v1::RELEASE_REASON_BENCH_MISMATCH, version->id(), computed,
                    "bench mismatch on " + options_.name);
            return false;
        }
    }
    return true;
}

void Worker::release(int64_t lease_id, v1::ReleaseReason reason, int64_t version_id,
                     uint64_t computed_bench, const std::string& message) {
    v1::ReleaseLeaseRequest request;
    request.set_worker_id(worker_id_);
    request.set_lease_id(lease_id);
    request.set_reason(reason);
    request.set_version_id(version_id);
    request.set_computed_bench(computed_bench);
    request.set_message(message);
    const auto give_up = Clock::now() + options_.shutdown_grace;
    milliseconds backoff = kFirstBackoff;
    for (;;) {
        grpc::ClientContext context;
        rpc::prepare(context, options_.endpoint.token, options_.rpc_timeout);
        v1::ReleaseLeaseResponse response;
        const grpc::Status status = stub_->ReleaseLease(&context, request, &response);
        if (status.ok()) {
            log("handed back lease " + std::to_string(lease_id) + " (" +
                std::to_string(response.pairs_returned()) + " pairs returned)");
            return;
        }
        if (!rpc::is_transient(status) || Clock::now() + backoff > give_up) {
            log("could not hand back lease " + std::to_string(lease_id) + ": " +
                rpc::describe(status) + "; it will expire");
            return;
        }
        std::this_thread::sleep_for(jitter(backoff));
        backoff = std::min(backoff * 2, options_.max_backoff);
    }
}

std::optional<std::function<void(const Worker::PairSink&)>> Worker::player_of(
    const v1::Lease& lease) {
    std::string error;
    const auto refuse = [&] {
        release(lease.lease_id(), v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, error);
        return std::nullopt;
    };
    if (lease.has_generate()) {
        auto options = generate_options(lease, options_.concurrency, &error);
        if (!options) return refuse();
        return [this, &lease, options = std::move(*options)](const PairSink& keep) {
            play_generate_pairs(lease, options, keep, lease_stop_);
        };
    }
    const auto config = match_config(lease, options_.concurrency, options_.name, &error);
    if (!config) return refuse();
    std::optional<std::vector<match::MatchConfig>> tune_pairs;
    if (lease.has_tune()) {
        tune_pairs = tune_configs(lease, *config, &error);
        if (!tune_pairs) return refuse();
    }
    return [this, &lease, config = *config, tune_pairs](const PairSink& keep) {
        const auto convert = [&](const match::PairResult& pair) {
            v1::GamePair entry;
            pair_to_proto(pair, lease.first_pair(), &entry);
            keep(std::move(entry));
        };
        const std::vector<match::PairJob> jobs = pair_jobs(lease);
        if (tune_pairs)
            play_tune_pairs(*tune_pairs, jobs, options_.concurrency, convert, lease_stop_);
        else
            match::MatchRunner(config).play(jobs, {nullptr, convert}, lease_stop_);
    };
}

void Worker::serve_lease(const v1::Lease& lease) {
    const size_t pairs = lease.has_generate() ? size_t(lease.generate().game_openings_size() / 2)
                                              : size_t(lease.openings_size());
    log("lease " + std::to_string(lease.lease_id()) + ": run " + std::to_string(lease.run_id()) +
        ", " + std::to_string(pairs) + " pairs, " +
        (lease.has_generate() ? "self-play of " + lease.test().name()
                              : lease.test().name() + " vs " + lease.base().name()));
    if (!verify_versions(lease)) return;
    std::optional<std::function<void(const PairSink&)>> play = player_of(lease);
    if (!play) return;

    lease_stop_ = false;
    current_lease_ = lease.lease_id();
    std::vector<v1::GamePair> finished;  // played, not yet in a report; under mutex_
    bool play_done = false;              // under mutex_
    std::string play_error;
    std::thread player([&] {
        const PairSink keep = [&](v1::GamePair&& pair) {
            std::lock_guard lock(mutex_);
            finished.push_back(std::move(pair));
        };
        try {
            (*play)(keep);
        } catch (const std::exception& e) {
            play_error = e.what();
        }
        {
            std::lock_guard lock(mutex_);
            play_done = true;
        }
        wake_.notify_all();
    });

    uint32_t sequence = 0;
    std::optional<v1::ReportResultsRequest> in_flight;  // kept until acknowledged
    auto last_report = Clock::now();
    std::optional<Clock::time_point> give_up;  // set once stopping
    milliseconds backoff = kFirstBackoff;
    bool abandoned = false;
    for (;;) {
        bool all_played = false;
        {
            std::unique_lock lock(mutex_);
            // Wakes for what needs doing: a report due, a stop to act on, the end of play.
            wake_.wait_for(lock, options_.report_interval, [&] {
                return play_done || (stopping_ && !give_up) || (lease_stop_ && !abandoned) ||
                       (!in_flight && !finished.empty() &&
                        (stopping_ || Clock::now() - last_report >= options_.report_interval));
            });
            all_played = play_done;
            if (!in_flight && !finished.empty() && !abandoned &&
                (play_done || stopping_ ||
                 Clock::now() - last_report >= options_.report_interval)) {
                in_flight.emplace();
                in_flight->set_worker_id(worker_id_);
                in_flight->set_lease_id(lease.lease_id());
                in_flight->set_sequence(++sequence);
                for (v1::GamePair& pair : finished) *in_flight->add_pairs() = std::move(pair);
                finished.clear();
            }
        }
        if (stopping_ && !give_up) {
            give_up = Clock::now() + options_.shutdown_grace;
            lease_stop_ = true;
        }
        if (in_flight && !abandoned) {
            grpc::ClientContext context;
            rpc::prepare(context, options_.endpoint.token, options_.rpc_timeout);
            v1::ReportResultsResponse response;
            const grpc::Status status = stub_->ReportResults(&context, *in_flight, &response);
            if (status.ok()) {
                in_flight.reset();
                last_report = Clock::now();
                backoff = kFirstBackoff;
                if (response.stop()) {
                    lease_stop_ = true;
                    abandoned = true;  // the run needs no more of this lease
                }
            } else if (rpc::is_transient(status)) {
                log("report " + std::to_string(in_flight->sequence()) + " not acknowledged (" +
                    rpc::describe(status) + "), retrying");
                std::this_thread::sleep_for(jitter(backoff));
                backoff = std::min(backoff * 2, options_.max_backoff);
            } else {
                log("report " + std::to_string(in_flight->sequence()) +
                    " refused: " + rpc::describe(status) + "; abandoning lease " +
                    std::to_string(lease.lease_id()));
                lease_stop_ = true;
                abandoned = true;
            }
        }
        if (lease_stop_ && !stopping_) abandoned = true;
        if (give_up && Clock::now() > *give_up) {
            log("shutdown grace over with results unacknowledged; the lease will expire");
            abandoned = true;
        }
        bool drained = false;
        {
            std::lock_guard lock(mutex_);
            drained = finished.empty() && !in_flight;
        }
        if (all_played && (drained || abandoned)) break;
    }
    player.join();
    current_lease_ = 0;
    if (!play_error.empty() && !abandoned) {
        log("lease " + std::to_string(lease.lease_id()) + " failed: " + play_error);
        release(lease.lease_id(), v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, play_error);
    } else if (stopping_ && !abandoned) {
        release(lease.lease_id(), v1::RELEASE_REASON_SHUTDOWN, 0, 0, "worker shutting down");
    } else if (!abandoned) {
        log("lease " + std::to_string(lease.lease_id()) + " done: " + std::to_string(pairs) +
            " pairs reported");
    }
}

void Worker::heartbeat_loop() {
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            if (wake_.wait_for(lock, milliseconds(heartbeat_ms_.load()),
                               [this] { return finished_.load(); }))
                return;
        }
        v1::HeartbeatRequest request;
        request.set_worker_id(worker_id_);
        const int64_t lease = current_lease_;
        if (lease) request.add_lease_ids(lease);
        grpc::ClientContext context;
        rpc::prepare(context, options_.endpoint.token, options_.rpc_timeout);
        v1::HeartbeatResponse response;
        const grpc::Status status = stub_->Heartbeat(&context, request, &response);
        if (!status.ok()) continue;
        for (int64_t stop : response.stop_lease_ids()) {
            if (stop != lease || current_lease_ != lease) continue;
            log("coordinator stopped lease " + std::to_string(lease));
            lease_stop_ = true;
            wake_.notify_all();
        }
    }
}

}  // namespace sparring::worker
