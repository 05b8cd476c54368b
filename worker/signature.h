// Bench signatures as the worker computes them, to check it runs the engine a version names.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "match/bench_run.h"
#include "sparring/v1/common.pb.h"
#include "worker/match_setup.h"

namespace sparring::worker {

// How `COMMAND bench` of a UCI engine runs: confined like the engine's games, and killed
// when it takes longer than timeout.
struct BenchOptions {
    std::chrono::milliseconds timeout{300'000};
    EngineLimits limits;
};

// What computing a signature gave.
struct Signature {
    enum class Status {
        Computed,     // nodes holds the signature
        NoSignature,  // the engine ran but gave none: hung, failed or printed no node count
        Error,        // it could not be computed here (unstartable command, bad parameters)
    };
    Status status = Status::Error;
    uint64_t nodes = 0;
    bool cached = false;  // a built-in version's count read from the bench cache
    std::string error;    // why, unless computed
    // The engine died of SIGILL: its build needs a CPU this machine lacks (issue 52).
    bool illegal_instruction = false;
};

// Returns the bench signature of a version on this machine: the built-in engine's bench
// with the version's parameters, `COMMAND bench` of a UCI engine, or an uploaded engine's
// `bench` (after the version's arguments) run from its file in `engines`. A built-in
// version's count comes from the bench cache when SPARRING_BENCH_CACHE holds it
// (match/bench_cache.h).
Signature signature_of(const v1::Version& version, const BenchOptions& options,
                       const EnginePaths& engines = {});

// Returns how the spin options a UCI or uploaded version's engine declares on this machine
// (its reply to `uci`, confined by limits as its games are) differ from those the version
// records ("" when they are the same); nullopt with *error when the engine does not answer.
std::optional<std::string> engine_options_difference(const v1::Version& version,
                                                     const EnginePaths& engines,
                                                     const EngineLimits& limits,
                                                     std::string* error);

// Returns the bench signature as signature_of with default options, nullopt with *error when
// there is none.
std::optional<uint64_t> compute_signature(const v1::Version& version, std::string* error);

// Returns the node count of a bench's output (the last "Nodes searched" line), if any.
using match::parse_bench_output;

}  // namespace sparring::worker
