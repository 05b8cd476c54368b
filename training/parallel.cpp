#include "training/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace sparring::training {

void for_each_chunk(
    std::size_t count, std::size_t chunk_size, int threads,
    const std::function<void(std::size_t chunk, std::size_t begin, std::size_t end)>& work) {
    const std::size_t chunks = chunk_count(count, chunk_size);
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto drain = [&] {
        for (std::size_t chunk; (chunk = next.fetch_add(1)) < chunks;) {
            try {
                work(chunk, chunk * chunk_size, std::min(count, (chunk + 1) * chunk_size));
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                next = chunks;
            }
        }
    };
    const std::size_t workers = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::max(threads, 1)), 1, std::max<std::size_t>(chunks, 1));
    std::vector<std::jthread> pool;
    pool.reserve(workers - 1);
    for (std::size_t i = 1; i < workers; ++i) pool.emplace_back(drain);
    drain();
    pool.clear();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace sparring::training
