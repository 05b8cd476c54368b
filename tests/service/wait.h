// Waiting in tests on a fact (a row, a log line, a count, a process state) instead of a fixed
// time: shared by the service, web, ops and worker tests.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace sparring::test_support {

// Waits until the condition holds, checking it every `every`, up to timeout; returns whether
// it did.
inline bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                       std::chrono::milliseconds every = std::chrono::milliseconds(100)) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > until) return false;
        // Polling: the condition is a fact outside this thread (a file, a query, a process).
        std::this_thread::sleep_for(every);
    }
    return true;
}

}  // namespace sparring::test_support
