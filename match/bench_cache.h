// The built-in engine's bench signature, remembered across processes. The node count is a
// function of the program's code and the parameters alone, so when SPARRING_BENCH_CACHE
// names a directory a program computes it once per executable and parameter set and later
// reads it back: a worker restarted with many versions, or `sparring versions add` run again,
// does not search the bench positions again. Entries are keyed by the SHA-256 of the running
// executable, the depth and the parameters; one that cannot be read or parsed is computed
// again and replaced. Without the variable every call computes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/bench.h"
#include "engine/params.h"

namespace sparring {

inline constexpr const char* kBenchCacheVariable = "SPARRING_BENCH_CACHE";

struct BuiltinBench {
    uint64_t nodes = 0;
    bool cached = false;  // read from the cache rather than computed now
};

// Returns the bench node count of params at depth: from the cache when it holds the entry,
// else computed with that many threads (the same count; see run_bench) and stored when a
// cache is configured and writable.
BuiltinBench builtin_bench(const ParamSet& params, int depth = BENCH_DEFAULT_DEPTH,
                           int threads = 1);

// Returns the signature at the default depth of a version someone waits for (the coordinator
// making a version, `sparring versions add`): computed on the machine's cores, at most 8, each
// thread holding a 16 MB table. A worker computes with one (builtin_bench's default), beside
// the games its other threads play.
uint64_t awaited_bench(const ParamSet& params);

// Returns the path of the cache entry for params at depth, or nullopt when no cache is
// configured or the executable cannot be read (for tests and for `sparring` diagnostics).
std::optional<std::string> bench_cache_entry(const ParamSet& params,
                                             int depth = BENCH_DEFAULT_DEPTH);

}  // namespace sparring
