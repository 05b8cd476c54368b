#include "coordinator/ops/notifier.h"

// cpp-httplib as the client (the server is Beast's); its pkg-config flags turn on HTTPS.
#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <future>
#include <limits>
#include <nlohmann/json.hpp>
#include <variant>

#include "common/backoff.h"
#include "common/dates.h"
#include "common/log.h"
#include "common/printable.h"
#include "coordinator/domain/notifications.h"

namespace sparring::coordinator {

namespace {

// Returns a duration as text for people: "10 s", "1.5 s".
std::string seconds_text(std::chrono::milliseconds duration) {
    const int64_t ms = duration.count();
    return (ms % 1000 == 0 ? std::to_string(ms / 1000)
                           : std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100)) +
           " s";
}

}  // namespace

Notifier::Notifier(Options options, Executor& writer, Executor& reader, EventBus& events)
    : options_(std::move(options)), writer_(writer), reader_(reader), events_(events) {
    options_.max_in_flight = std::max(1, options_.max_in_flight);
    options_.max_attempts = std::max(1, options_.max_attempts);
}

Notifier::~Notifier() {
    stop();
}

void Notifier::start() {
    // Quick, as a subscriber must be: the dispatcher reads the outbox on its own thread.
    run_ended_ = events_.subscribe_all([this](const Event& event) {
        // A run's end or pause put notices in the outbox.
        if (!std::holds_alternative<RunFinished>(event) &&
            !std::holds_alternative<RunPaused>(event))
            return;
        {
            std::lock_guard lock(mutex_);
            woken_ = true;
        }
        wake_.notify_all();
    });
    flights_.assign(size_t(options_.max_in_flight), Flight{});
    for (size_t slot = 0; slot < flights_.size(); ++slot)
        pool_.emplace_back([this, slot] { post_loop(slot); });
    watchdog_ = std::thread([this] { watch_loop(); });
    dispatcher_ = std::thread([this] { dispatch_loop(); });
}

void Notifier::stop() {
    run_ended_.reset();
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        for (Flight& flight : flights_)
            if (flight.active) abort(flight);
    }
    wake_.notify_all();
    work_.notify_all();
    watch_.notify_all();
    if (dispatcher_.joinable()) dispatcher_.join();
    if (watchdog_.joinable()) watchdog_.join();
    for (std::thread& thread : pool_)
        if (thread.joinable()) thread.join();
}

void Notifier::abort(Flight& flight) {
    flight.aborted = true;
    if (flight.socket >= 0) ::shutdown(flight.socket, SHUT_RDWR);
}

std::string Notifier::send(const Notification& n, Flight& flight) {
    const absl::StatusOr<NotifyUrl> parsed = parse_notify_url(n.url);
    if (!parsed.ok()) return std::string(parsed.status().message());
    const std::string host =
        parsed->host.find(':') != std::string::npos ? "[" + parsed->host + "]" : parsed->host;
    httplib::Client client(parsed->scheme + "://" + host + ":" + std::to_string(parsed->port));
    // Per read and write; the watchdog holds the whole POST to the same deadline.
    client.set_connection_timeout(options_.timeout);
    client.set_read_timeout(options_.timeout);
    client.set_write_timeout(options_.timeout);
    client.set_follow_location(false);  // a redirect could lead anywhere
    // A socket of our own for the watchdog to shut down: the client closes its own when done,
    // and its number could then be another file's.
    client.set_socket_options([this, &flight](socket_t socket) {
        std::lock_guard lock(mutex_);
        if (flight.socket >= 0) ::close(flight.socket);
        flight.socket = ::dup(socket);
        if (flight.aborted && flight.socket >= 0) ::shutdown(flight.socket, SHUT_RDWR);
    });
    const std::string key = std::to_string(n.id);
    const httplib::Headers headers = {{"Idempotency-Key", key},
                                      {"User-Agent", "sparring-coordinator"}};
    // The id first, then the run page's link (unless a notice from before carries it), then
    // the notice's fields; a stored notice that is not a JSON object adds nothing.
    nlohmann::ordered_json notice = nlohmann::ordered_json::parse(n.body, nullptr, false);
    if (!notice.is_object()) notice = nlohmann::ordered_json::object();
    nlohmann::ordered_json body = {{"id", n.id}};
    if (!options_.public_url.empty() && !notice.contains("link"))
        body["link"] = options_.public_url + "/runs/" + std::to_string(n.run_id);
    for (auto& [name, value] : notice.items()) body[name] = std::move(value);
    const httplib::Result answer =
        client.Post(parsed->target, headers,
                    body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                    "application/json");
    {
        std::lock_guard lock(mutex_);
        if (flight.aborted)
            return stopping_ ? "abandoned: the coordinator stopped"
                             : "no answer within " + seconds_text(options_.timeout) +
                                   " (the deadline of a whole POST)";
    }
    if (!answer) return "no answer: " + httplib::to_string(answer.error());
    if (answer->status < 200 || answer->status > 299)
        return "HTTP " + std::to_string(answer->status);
    return {};
}

void Notifier::record(const Notification& n, const std::string& error, bool refused) {
    const int attempts = refused ? n.attempts : n.attempts + 1;
    const bool last = attempts >= options_.max_attempts;
    const int64_t wait_ms =
        exponential_delay(std::chrono::seconds(1), options_.max_backoff, attempts).count();
    std::vector<LogField> fields = {
        {"id", std::to_string(n.id)}, {"run", std::to_string(n.run_id)}, {"url", n.url}};
    if (error.empty()) {
        fields.push_back({"attempts", std::to_string(attempts)});
        log_event(LogLevel::Info, "notification_sent", fields);
    } else if (refused) {
        fields.push_back({"error", error});
        log_event(LogLevel::Warn, "notification_dropped", fields);
    } else if (last) {
        fields.push_back({"attempts", std::to_string(attempts)});
        fields.push_back({"error", error});
        log_event(LogLevel::Error, "notification_undeliverable", fields);
    } else {
        fields.push_back({"error", error});
        fields.push_back({"retry_ms", std::to_string(wait_ms)});
        log_event(LogLevel::Warn, "notification_failed", fields);
    }
    if (options_.observe)
        options_.observe(error.empty() ? "delivered"
                         : refused     ? "dropped"
                         : last        ? "failed"
                                       : "retried");
    std::promise<void> recorded;
    writer_.submit(
        [&](Storage& storage) {
            const std::string why = printable(error, 500);
            if (error.empty())
                storage.notification_delivered(n.id, unix_now_ms());
            else if (refused)
                storage.notification_given_up(n.id, "dropped", attempts, why);
            else if (last)
                storage.notification_given_up(n.id, "failed", attempts, why);
            else
                storage.notification_failed(n.id, attempts, unix_now_ms() + wait_ms, why);
            return absl::OkStatus();
        },
        [&recorded](const absl::Status&) { recorded.set_value(); });
    recorded.get_future().wait();
}

void Notifier::post_loop(size_t slot) {
    // A write to a socket the watchdog shut down (or the receiver closed) fails with EPIPE
    // rather than a SIGPIPE that would end the process.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::unique_lock lock(mutex_);
    while (true) {
        work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        const Notification n = std::move(queue_.front());
        queue_.pop_front();
        Flight& flight = flights_[slot];
        flight = Flight{true, false, std::chrono::steady_clock::now() + options_.timeout, -1};
        watch_.notify_all();
        lock.unlock();
        // The operator's list holds at send time too: a URL it no longer lets through (the
        // list changed across a restart) gets nothing more.
        const absl::Status allowed = check_notify_url(n.url, options_.allowed);
        const std::string error = allowed.ok() ? send(n, flight) : std::string(allowed.message());
        lock.lock();
        if (flight.socket >= 0) ::close(flight.socket);
        flight = Flight{};
        // A POST the stop cut short is abandoned, not counted: the notification stays pending.
        if (stopping_ && !error.empty()) return;
        lock.unlock();
        record(n, error, !allowed.ok());
        lock.lock();
        busy_.erase(n.destination);
        woken_ = true;
        wake_.notify_all();
    }
}

void Notifier::watch_loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        const auto now = std::chrono::steady_clock::now();
        auto next = std::chrono::steady_clock::time_point::max();
        for (Flight& flight : flights_) {
            if (!flight.active || flight.aborted) continue;
            if (flight.deadline <= now)
                abort(flight);
            else
                next = std::min(next, flight.deadline);
        }
        if (next == std::chrono::steady_clock::time_point::max())
            watch_.wait(lock);
        else
            watch_.wait_until(lock, next);
    }
}

std::vector<Notification> Notifier::read_due(int free, const std::vector<std::string>& busy,
                                             std::optional<int64_t>* next_due) {
    std::vector<Notification> due;
    std::promise<void> read;
    reader_.submit(
        [&due, &busy, free, next_due](Storage& storage) {
            const int64_t now = unix_now_ms();
            due = storage.due_notifications(now, free, busy);
            // The destinations of those due are taken until they are sent: the earliest of
            // the others says when to look again.
            std::vector<std::string> taken = busy;
            for (const Notification& n : due) taken.push_back(n.destination);
            const std::vector<Notification> next =
                storage.due_notifications(std::numeric_limits<int64_t>::max(), 1, taken);
            *next_due = next.empty() ? std::nullopt : std::optional<int64_t>(next[0].next_ms);
            return absl::OkStatus();
        },
        [&read](const absl::Status&) { read.set_value(); });
    read.get_future().wait();
    return due;
}

void Notifier::dispatch_loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        woken_ = false;
        const int free = options_.max_in_flight - int(busy_.size());
        std::optional<int64_t> next_due;
        if (free > 0) {
            const std::vector<std::string> busy(busy_.begin(), busy_.end());
            lock.unlock();
            std::vector<Notification> due = read_due(free, busy, &next_due);
            lock.lock();
            // Every place taken: the next look comes when one is freed.
            if (int(due.size()) == free) next_due.reset();
            for (Notification& n : due)
                if (busy_.insert(n.destination).second) queue_.push_back(std::move(n));
            if (!due.empty()) work_.notify_all();
        }
        const auto woken = [this] { return stopping_ || woken_; };
        if (next_due)
            wake_.wait_for(
                lock, std::chrono::milliseconds(std::max<int64_t>(0, *next_due - unix_now_ms())),
                woken);
        else
            wake_.wait(lock, woken);
    }
}

}  // namespace sparring::coordinator
