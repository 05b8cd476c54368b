// A worker's speed with an engine: nodes per second of fixed positions searched for a fixed
// time, by as many copies of the engine at once as the worker plays games, so that a loaded
// machine measures as slow (the clock scaling of docs/service.md, "Scaled clocks").
#pragma once

#include <cstdint>
#include <string>

#include "match/player.h"

namespace sparring::match {

struct SpeedOptions {
    int copies = 1;         // engines searching at once (the worker's games at once)
    int movetime_ms = 250;  // time of each position's search
    int positions = 4;      // of the fixed positions, the first this many (1..kSpeedPositions)
};

constexpr int kSpeedPositions = 6;

struct Speed {
    std::uint64_t nps = 0;    // nodes per second of one copy, the mean over the copies
    std::uint64_t nodes = 0;  // nodes searched by all copies
    double seconds = 0;       // wall time of all copies' searches, summed
    std::string error;        // why there is no measurement (nps is then 0)
};

// Searches the fixed positions with `copies` engines of spec at once, each engine its own
// thread; nps is the nodes each engine reported for its last search of a position over the
// wall time of that search, summed over the positions, averaged over the copies. An engine
// that fails, or reports no nodes, gives an error.
Speed measure_speed(const PlayerSpec& spec, const SpeedOptions& options);

// Returns the factor a clock is multiplied by on a worker of measured_nps for a run defined at
// reference_nps (above 1 on a slower machine).
double clock_factor(std::uint64_t reference_nps, std::uint64_t measured_nps);
// Returns a time in milliseconds multiplied by factor, rounded to the nearest millisecond; a
// positive time stays at least 1 ms, 0 stays 0, and the result at most INT32_MAX.
int scale_ms(int ms, double factor);

}  // namespace sparring::match
