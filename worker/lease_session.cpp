#include "worker/lease_session.h"

#include <algorithm>
#include <thread>

#include "common/printable.h"
#include "worker/lease_kinds.h"

namespace sparring::worker {

using std::chrono::milliseconds;

v1::ReleaseLeaseRequest release_request(int64_t worker_id, int64_t lease_id,
                                        v1::ReleaseReason reason, const std::string& message,
                                        int64_t version_id, uint64_t computed_bench,
                                        uint64_t measured_nps, const std::string& build_level) {
    v1::ReleaseLeaseRequest request;
    request.set_worker_id(worker_id);
    request.set_lease_id(lease_id);
    request.set_reason(reason);
    request.set_version_id(version_id);
    request.set_computed_bench(computed_bench);
    request.set_message(valid_utf8(message));
    request.set_measured_nps(measured_nps);
    request.set_build_level(valid_utf8(build_level));
    return request;
}

LeaseSession::LeaseSession(const v1::Lease& lease, Options options, LeaseCoordinator& coordinator,
                           Clock& clock, Log log)
    : lease_(lease),
      options_(options),
      coordinator_(coordinator),
      clock_(clock),
      log_(std::move(log)),
      backoff_(options.first_backoff, options.max_backoff, options.seed) {
    extend(lease.expires_unix_ms());
}

void LeaseSession::extend(int64_t expires_unix_ms) {
    if (expires_unix_ms == 0) return;
    // The expiry is on the coordinator's clock. This machine's may differ: a lease time
    // shorter than two heartbeats (the coordinator grants longer ones) is taken as such a
    // difference, since stopping late only costs games while stopping early loses the lease.
    const milliseconds left(expires_unix_ms - clock_.unix_ms());
    expires_at_ = clock_.now() + std::max(left, 2 * options_.heartbeat_interval);
}

void LeaseSession::shut_down() {
    {
        std::lock_guard lock(mutex_);
        shutdown_ = true;
        ++events_;
    }
    wake_.notify_all();
}

void LeaseSession::sleep(milliseconds duration) {
    std::unique_lock lock(mutex_);
    clock_.wait_until(lock, wake_, clock_.now() + duration, [] { return false; });
}

bool LeaseSession::send_heartbeat() {
    v1::HeartbeatRequest request;
    request.set_worker_id(options_.worker_id);
    request.add_lease_ids(lease_.lease_id());
    v1::HeartbeatResponse response;
    if (!coordinator_.heartbeat(request, &response).ok()) return false;
    const auto& stops = response.stop_lease_ids();
    if (std::find(stops.begin(), stops.end(), lease_.lease_id()) != stops.end()) {
        log_("coordinator stopped lease " + std::to_string(lease_.lease_id()));
        return true;
    }
    extend(response.expires_unix_ms());
    return false;
}

void LeaseSession::hand_back(v1::ReleaseReason reason, int64_t version_id, uint64_t computed_bench,
                             const std::string& message, uint64_t measured_nps,
                             const std::string& build_level) {
    const v1::ReleaseLeaseRequest request =
        release_request(options_.worker_id, lease_.lease_id(), reason, message, version_id,
                        computed_bench, measured_nps, build_level);
    const Clock::TimePoint give_up = clock_.now() + options_.shutdown_grace;
    Backoff backoff(options_.first_backoff, options_.max_backoff, options_.seed);
    v1::ReleaseLeaseResponse response;
    const CallOutcome outcome = retry_transient(
        [&] {
            response.Clear();
            return coordinator_.release(request, &response);
        },
        backoff,
        [&](const CallOutcome&, milliseconds delay) {
            if (clock_.now() + delay > give_up) return false;
            sleep(delay);
            return true;
        });
    const std::string name = "lease " + std::to_string(lease_.lease_id());
    if (outcome.ok())
        log_("handed back " + name + " (" + std::to_string(response.pairs_returned()) +
             " pairs returned)");
    else
        log_("could not hand back " + name + ": " + outcome.error + "; it will expire");
}

void LeaseSession::take_report(bool now_or_never) {
    if (in_flight_ || finished_.empty() || end_) return;
    if (!now_or_never && clock_.now() - last_report_ < options_.report_interval) return;
    in_flight_.emplace();
    in_flight_->set_worker_id(options_.worker_id);
    in_flight_->set_lease_id(lease_.lease_id());
    in_flight_->set_sequence(++sequence_);
    in_flight_->set_clock_factor(clock_factor_);
    in_flight_->set_nps(nps_);
    // A report stays under the coordinator's receive limit (gRPC's 4 MiB): the pairs past
    // kMaxReportBytes wait for the next report rather than make this one fail on every retry.
    size_t bytes = 0;
    size_t taken = 0;
    for (; taken < finished_.size(); ++taken) {
        const size_t pair_bytes = finished_[taken].ByteSizeLong();
        if (taken > 0 && bytes + pair_bytes > kMaxReportBytes) break;
        bytes += pair_bytes;
        *in_flight_->add_pairs() = std::move(finished_[taken]);
    }
    finished_.erase(finished_.begin(), finished_.begin() + std::ptrdiff_t(taken));
    retry_at_ = clock_.now();
}

void LeaseSession::send_report() {
    v1::ReportResultsResponse response;
    const CallOutcome outcome = coordinator_.report(*in_flight_, &response);
    const std::string report = "report " + std::to_string(in_flight_->sequence());
    if (outcome.ok()) {
        // A duplicate answer means an earlier attempt was counted: acknowledged too.
        in_flight_.reset();
        last_report_ = clock_.now();
        backoff_.reset();
        kept_after_expiry_ = expired_;
        extend(response.expires_unix_ms());
        if (response.stop()) end_ = End::Stopped;
    } else if (outcome.kind == CallOutcome::Kind::Transient) {
        log_(report + " not acknowledged (" + outcome.error + "), retrying");
        retry_at_ = clock_.now() + wait_after(outcome, backoff_);
    } else {
        log_(report + " refused: " + outcome.error + "; abandoning lease " +
             std::to_string(lease_.lease_id()));
        if (outcome.kind == CallOutcome::Kind::LeaseOver) {
            end_ = End::Stopped;
        } else {
            end_ = End::Refused;
            refusal_ = report + " refused: " + outcome.error;
        }
    }
}

void LeaseSession::keep_time() {
    // Heartbeats go on after the lease is abandoned: they keep the worker seen.
    if (clock_.now() >= next_heartbeat_) {
        if (send_heartbeat() && !end_) end_ = End::Stopped;
        next_heartbeat_ = clock_.now() + options_.heartbeat_interval;
    }
    if (!end_ && !expired_ && expires_at_ && clock_.now() >= *expires_at_) {
        log_("lease " + std::to_string(lease_.lease_id()) +
             " expired with nothing acknowledged in time; stopping its games");
        expired_ = true;
        cancel_ = true;
    }
    if (!end_ && give_up_ && clock_.now() >= *give_up_) {
        log_("shutdown grace over with results unacknowledged; the lease will expire");
        end_ = End::GraceOver;
    }
    if (end_) cancel_ = true;
}

Clock::TimePoint LeaseSession::next_wake() const {
    Clock::TimePoint wake = next_heartbeat_;
    if (end_) return wake;
    if (expires_at_ && !expired_) wake = std::min(wake, *expires_at_);
    if (give_up_) wake = std::min(wake, *give_up_);
    if (in_flight_) return std::min(wake, retry_at_);
    if (finished_.empty()) return wake;
    return std::min(
        wake, play_done_ || shutdown_ ? clock_.now() : last_report_ + options_.report_interval);
}

LeaseSession::End LeaseSession::finish(const std::string& play_error, bool shutting_down) {
    const std::string name = "lease " + std::to_string(lease_.lease_id());
    if (unsupported_ && !end_) {
        log_(name + ": " + play_error + "; handing it back");
        hand_back(v1::RELEASE_REASON_CPU_UNSUPPORTED, unsupported_->version_id, 0, play_error, 0,
                  unsupported_->level);
        return End::Unsupported;
    }
    if (!play_error.empty() && !end_) {
        log_(name + " failed: " + play_error);
        hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, play_error);
        return End::Failed;
    }
    if (end_ == End::Refused) hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0, refusal_);
    if (end_) return *end_;
    if (shutting_down) {
        hand_back(v1::RELEASE_REASON_SHUTDOWN, 0, 0, "worker shutting down");
        return End::ShutDown;
    }
    if (expired_) {
        // The coordinator still holds the lease: its unplayed pairs go back to the pool now.
        if (kept_after_expiry_)
            hand_back(v1::RELEASE_REASON_ENGINE_FAILURE, 0, 0,
                      name + " expired on the worker while the coordinator was unreachable");
        return End::Expired;
    }
    log_(name + " done: " + std::to_string(lease_kind(lease_).pairs(lease_)) + " pairs reported");
    return End::Done;
}

LeaseSession::End LeaseSession::play(const PlayPairs& play_pairs) {
    std::string play_error;
    std::thread player([&] {
        const PairSink keep = [this](v1::GamePair&& pair) {
            {
                std::lock_guard lock(mutex_);
                finished_.push_back(std::move(pair));
                ++events_;
            }
            wake_.notify_all();
        };
        try {
            play_pairs(keep, cancel_);
        } catch (const BuildUnsupported& e) {
            play_error = e.what();
            unsupported_ = e;
        } catch (const std::exception& e) {
            play_error = e.what();
        }
        {
            std::lock_guard lock(mutex_);
            play_done_ = true;
            ++events_;
        }
        wake_.notify_all();
    });

    last_report_ = clock_.now();
    next_heartbeat_ = clock_.now() + options_.heartbeat_interval;
    bool shutting_down = false;
    for (;;) {
        uint64_t seen = 0;
        bool all_played = false;
        {
            std::lock_guard lock(mutex_);
            seen = events_;
            all_played = play_done_;
            shutting_down = shutdown_;
            take_report(all_played || shutting_down);
        }
        if (shutting_down && !give_up_) {
            give_up_ = clock_.now() + options_.shutdown_grace;
            cancel_ = true;
        }
        if (in_flight_ && !end_ && clock_.now() >= retry_at_) send_report();
        keep_time();

        std::unique_lock lock(mutex_);
        if (all_played && ((finished_.empty() && !in_flight_) || end_)) break;
        // Sleeps until the next thing due, or until a pair, the end of play or shutdown.
        clock_.wait_until(lock, wake_, next_wake(), [&] { return events_ != seen; });
    }
    player.join();
    return finish(play_error, shutting_down);
}

}  // namespace sparring::worker
