#include "coordinator/http/handler_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/log.h"

namespace sparring::coordinator::http_detail {

// Lowers the calling thread's CPU priority by `nice` (a thread's nice value is its own on Linux).
void lower_priority(int nice) {
    if (nice <= 0) return;
    const auto self = id_t(syscall(SYS_gettid));
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, self);
    if (errno == 0) setpriority(PRIO_PROCESS, self, std::min(19, current + nice));
}

HandlerPool::HandlerPool(int threads, int nice) {
    for (int i = 0; i < std::max(1, threads); ++i)
        threads_.emplace_back([this, nice] {
            lower_priority(nice);
            run();
        });
}

HandlerPool::~HandlerPool() {
    stop();
}

void HandlerPool::submit(std::function<void()> task) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
}

void HandlerPool::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    ready_.notify_all();
    for (std::thread& thread : threads_)
        if (thread.joinable()) thread.join();
}

void HandlerPool::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        std::function<void()> task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        try {
            task();
        } catch (...) {
            log_unexpected_exception("HTTP handler pool");
        }
        task = nullptr;
        lock.lock();
    }
}

}  // namespace sparring::coordinator::http_detail
