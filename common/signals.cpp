#include "common/signals.h"

#include <pthread.h>

#include <ctime>
#include <stdexcept>

namespace sparring {

StopSignals::StopSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
}

StopSignals::~StopSignals() {
    done_ = true;
    if (waiter_.joinable()) waiter_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void StopSignals::watch(std::function<void(int signal)> on_signal) {
    if (waiter_.joinable()) throw std::logic_error("StopSignals::watch called twice");
    on_signal_ = std::move(on_signal);
    waiter_ = std::thread([this] {
        // A timed wait lets the destructor end the thread without sending it a signal.
        const timespec tick{0, 50'000'000};
        while (!done_.load())
            if (const int signal = sigtimedwait(&signals_, nullptr, &tick); signal > 0)
                on_signal_(signal);
    });
}

}  // namespace sparring
