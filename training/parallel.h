// Deterministic data parallelism: work split into fixed chunks, so that per-chunk results
// reduced in chunk order give the same sums whatever the number of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace sparring::training {

// Returns the number of chunks of chunk_size indices that cover [0, count).
constexpr std::size_t chunk_count(std::size_t count, std::size_t chunk_size) {
    return (count + chunk_size - 1) / chunk_size;
}

// Calls work(chunk, begin, end) for every chunk [begin, end) of [0, count) on up to threads
// threads (the caller's included) and returns when all are done; the first exception thrown
// by work is rethrown here after the other threads finish.
void for_each_chunk(
    std::size_t count, std::size_t chunk_size, int threads,
    const std::function<void(std::size_t chunk, std::size_t begin, std::size_t end)>& work);

}  // namespace sparring::training
