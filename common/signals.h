// SIGINT and SIGTERM as stop requests: taken from the whole process by one waiting thread,
// so work can stop cleanly instead of being killed halfway.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <thread>

namespace sparring {

class StopSignals {
  public:
    // Blocks SIGINT and SIGTERM in the calling thread and in every thread it starts from now
    // on; until watch() they stay pending.
    StopSignals();
    // Stops the waiting thread and restores the calling thread's signal mask, so a signal
    // from then on has its usual effect. Call it from the thread that made the object.
    ~StopSignals();

    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // Starts the thread that calls on_signal(signal) for each signal that arrives, one that
    // is pending already included; throws std::logic_error when called a second time.
    void watch(std::function<void(int signal)> on_signal);

  private:
    sigset_t signals_;
    sigset_t previous_;
    std::function<void(int)> on_signal_;
    std::atomic<bool> done_{false};
    std::thread waiter_;
};

}  // namespace sparring
