// The threads that run the HTTP server's handlers (which may block on the database), apart from
// its I/O threads, all niced below the rest of the process.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sparring::coordinator::http_detail {

// Lowers the calling thread's CPU priority by `nice` (a thread's nice value is its own on Linux).
void lower_priority(int nice);

// A few threads that run handlers in order of arrival, niced.
class HandlerPool {
  public:
    HandlerPool(int threads, int nice);
    ~HandlerPool();

    void submit(std::function<void()> task);
    // Runs what is queued, then joins the threads.
    void stop();

  private:
    void run();

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace sparring::coordinator::http_detail
