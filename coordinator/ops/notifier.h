// Sends the outbox's notifications (each run's end, see domain/notifications.h) as JSON POSTs
// on a thread of its own: the writer only ever records an outcome, so a slow or dead receiver
// never holds up a commit. Delivered at least once — a notification stays in the outbox until
// its URL answers 2xx, and a retry (after a restart, too) carries the same id — with backoff
// between attempts: 1 s, 2 s, 4 s … up to max_backoff.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/storage/executor.h"

namespace sparring::coordinator {

class Notifier {
  public:
    struct Options {
        std::vector<std::string> hosts;         // the hosts notifications may go to
        std::chrono::milliseconds poll{1000};   // the outbox is read this often
        std::chrono::seconds timeout{10};       // of one POST
        std::chrono::seconds max_backoff{600};  // the longest wait between attempts
        int batch = 16;                         // notifications sent per round, at most
    };

    Notifier(Options options, Executor& writer, Executor& reader);
    ~Notifier();

    void start();
    // Finishes the POST in flight and stops.
    void stop();

  private:
    void loop();
    // Sends one notification; returns an empty string on a 2xx answer, else what went wrong.
    std::string send(int64_t id, const std::string& url, const std::string& body) const;

    Options options_;
    Executor& writer_;
    Executor& reader_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace sparring::coordinator
