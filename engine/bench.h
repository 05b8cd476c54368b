// The bench signature: a fixed search over a fixed list of positions whose node count
// identifies the engine's code and parameters.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>

#include "engine/params.h"

namespace sparring {

inline constexpr int BENCH_DEFAULT_DEPTH = 12;
inline constexpr int BENCH_HASH_MB = 16;

struct BenchResult {
    std::uint64_t nodes = 0;
    int time_ms = 0;
};

// Returns the bench positions as FENs: openings, middle games and endings.
std::span<const std::string_view> bench_positions();

// Searches every bench position to depth with a 16 MB table cleared before each one;
// when log is given, writes one line per position to it, in the positions' order. With
// threads > 1 the positions are shared out among that many threads, each with an engine (and
// a 16 MB table) of its own: every position is searched exactly as alone, so the node count
// is the same and only the time shorter (compare speeds, nodes per second, with one thread).
BenchResult run_bench(int depth, const ParamSet& params, std::ostream* log = nullptr,
                      int threads = 1);

}  // namespace sparring
