#include "coordinator/ops/notifier.h"

// cpp-httplib as the client (the server is Beast's); its pkg-config flags turn on HTTPS.
#include <httplib.h>

#include <algorithm>
#include <future>

#include "common/log.h"
#include "common/printable.h"
#include "coordinator/domain/notifications.h"

namespace sparring::coordinator {

namespace {

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

Notifier::Notifier(Options options, Executor& writer, Executor& reader)
    : options_(std::move(options)), writer_(writer), reader_(reader) {}

Notifier::~Notifier() {
    stop();
}

void Notifier::start() {
    thread_ = std::thread([this] { loop(); });
}

void Notifier::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::string Notifier::send(int64_t id, const std::string& url, const std::string& body) const {
    // The operator's list holds at send time too: a host taken off it gets nothing more.
    if (absl::Status allowed = check_notify_url(url, options_.hosts); !allowed.ok())
        return std::string(allowed.message());
    const absl::StatusOr<NotifyUrl> parsed = parse_notify_url(url);
    if (!parsed.ok()) return std::string(parsed.status().message());
    const std::string host =
        parsed->host.find(':') != std::string::npos ? "[" + parsed->host + "]" : parsed->host;
    httplib::Client client(parsed->scheme + "://" + host + ":" + std::to_string(parsed->port));
    client.set_connection_timeout(options_.timeout);
    client.set_read_timeout(options_.timeout);
    client.set_write_timeout(options_.timeout);
    client.set_follow_location(false);  // a redirect could lead anywhere
    const std::string key = std::to_string(id);
    const httplib::Headers headers = {{"Idempotency-Key", key},
                                      {"User-Agent", "sparring-coordinator"}};
    // The id first, then the notice's fields.
    const std::string with_id = "{\"id\":" + key + "," + body.substr(1);
    const httplib::Result answer =
        client.Post(parsed->target, headers, with_id, "application/json");
    if (!answer) return "no answer: " + httplib::to_string(answer.error());
    if (answer->status < 200 || answer->status > 299)
        return "HTTP " + std::to_string(answer->status);
    return {};
}

void Notifier::loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        std::vector<Notification> due;
        std::promise<void> read;
        reader_.submit(
            [&due, this](Storage& storage) {
                due = storage.due_notifications(now_ms(), options_.batch);
                return absl::OkStatus();
            },
            [&read](const absl::Status&) { read.set_value(); });
        read.get_future().wait();
        for (const Notification& n : due) {
            {
                std::lock_guard stop(mutex_);
                if (stopping_) break;
            }
            const std::string error = send(n.id, n.url, n.body);
            const int attempts = n.attempts + 1;
            const int64_t wait_ms = std::min<int64_t>(
                int64_t(1000) << std::min(attempts - 1, 20),
                std::chrono::duration_cast<std::chrono::milliseconds>(options_.max_backoff)
                    .count());
            if (error.empty())
                log_event(LogLevel::Info, "notification_sent",
                          {{"id", std::to_string(n.id)},
                           {"run", std::to_string(n.run_id)},
                           {"url", n.url},
                           {"attempts", std::to_string(attempts)}});
            else
                log_event(LogLevel::Warn, "notification_failed",
                          {{"id", std::to_string(n.id)},
                           {"run", std::to_string(n.run_id)},
                           {"url", n.url},
                           {"error", error},
                           {"retry_ms", std::to_string(wait_ms)}});
            std::promise<void> recorded;
            writer_.submit(
                [&n, &error, attempts, wait_ms](Storage& storage) {
                    if (error.empty())
                        storage.notification_delivered(n.id, now_ms());
                    else
                        storage.notification_failed(n.id, attempts, now_ms() + wait_ms,
                                                    printable(error, 500));
                    return absl::OkStatus();
                },
                [&recorded](const absl::Status&) { recorded.set_value(); });
            recorded.get_future().wait();
        }
        lock.lock();
        // A full round may have left more due: go on at once.
        if (int(due.size()) < options_.batch)
            wake_.wait_for(lock, options_.poll, [this] { return stopping_; });
    }
}

}  // namespace sparring::coordinator
