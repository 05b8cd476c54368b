// Sends the outbox's notifications (each run's end, see domain/notifications.h) as JSON POSTs
// on threads of their own: the writer only ever records an outcome, so a slow or dead receiver
// never holds up a commit. Delivered at least once — a notification stays in the outbox until
// its URL answers 2xx, and a retry (after a restart, too) carries the same id — with backoff
// between attempts: 1 s, 2 s, 4 s … up to max_backoff (exponential_delay, common/backoff.h),
// and max_attempts in all: then it is marked failed. A URL off the operator's list when its
// turn comes is dropped unsent.
//
// The outbox is read when the notifier starts, when a run ends (the RunFinished event, after
// the commit that put the run's notifications there), when a destination is freed, and when
// the earliest retry it holds falls due: never on a timer of its own.
//
// One receiver cannot hold up another: each destination (HOST:PORT) has one POST at a time, on
// a pool of max_in_flight threads, and each POST has a deadline for the whole of it (connect,
// send, answer), however slowly the receiver trickles its answer. Stopping abandons the POSTs
// in flight: their notifications stay in the outbox, sent again after a restart.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/domain/events.h"
#include "coordinator/domain/types.h"
#include "coordinator/storage/executor.h"

namespace sparring::coordinator {

class Notifier {
  public:
    struct Options {
        std::vector<std::string> allowed;           // the list's entries, HOST:PORT[/PATH]
        std::string public_url;                     // links: public_url/runs/ID; empty: none
        std::chrono::milliseconds timeout{10'000};  // the whole of one POST
        std::chrono::seconds max_backoff{600};      // the longest wait between attempts
        int max_attempts = 20;                      // then the notification is marked failed
        int max_in_flight = 8;                      // destinations posted to at once
        // Told what became of each attempt: "delivered", "retried", "failed" or "dropped".
        std::function<void(std::string_view outcome)> observe;
    };

    // Reads the outbox with reader, records outcomes with writer, and hears of runs' ends on
    // events.
    Notifier(Options options, Executor& writer, Executor& reader, EventBus& events);
    ~Notifier();

    // Sets the base of the links (before start): the dashboard's address once it is bound.
    void set_public_url(std::string url) { options_.public_url = std::move(url); }
    void start();
    // Abandons the POSTs in flight (their notifications stay pending) and stops, without
    // waiting for any receiver.
    void stop();

  private:
    // A POST under way on one of the pool's threads.
    struct Flight {
        bool active = false;
        bool aborted = false;  // its deadline passed, or the notifier stops
        std::chrono::steady_clock::time_point deadline;
        int socket = -1;  // a duplicate of the POST's socket, to shut it down
    };

    void dispatch_loop();
    // Reads the outbox: the notifications due now of up to free destinations not in busy, and
    // when the next one of another destination falls due (unix ms; nullopt: none pending).
    std::vector<Notification> read_due(int free, const std::vector<std::string>& busy,
                                       std::optional<int64_t>* next_due);
    void post_loop(size_t slot);
    void watch_loop();
    // Sends one notification; returns an empty string on a 2xx answer, else what went wrong.
    std::string send(const Notification& n, Flight& flight);
    // Records what became of one notification.
    void record(const Notification& n, const std::string& error, bool refused);
    // Shuts a flight's socket down, which ends its POST at once (with mutex_ held).
    static void abort(Flight& flight);

    Options options_;
    Executor& writer_;
    Executor& reader_;
    EventBus& events_;
    EventBus::Subscription run_ended_;  // sets woken_
    std::mutex mutex_;
    std::condition_variable wake_;   // the dispatcher's: a destination was freed, or stop
    std::condition_variable work_;   // the pool's: a notification to send, or stop
    std::condition_variable watch_;  // the watchdog's: a POST began, or stop
    bool stopping_ = false;
    bool woken_ = false;  // the outbox may hold something new: a run ended or a destination freed
    std::deque<Notification> queue_;  // handed out, not yet taken by the pool
    std::set<std::string> busy_;      // destinations with a notification queued or in flight
    std::vector<Flight> flights_;     // one per pool thread
    std::thread dispatcher_;
    std::thread watchdog_;
    std::vector<std::thread> pool_;
};

}  // namespace sparring::coordinator
