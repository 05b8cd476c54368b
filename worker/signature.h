// Bench signatures as the worker computes them, to check it runs the engine a version names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring::worker {

// Returns the bench signature of a version on this machine: the built-in engine's bench
// with the version's parameters, or `COMMAND bench` of a UCI engine; nullopt with *error
// when it cannot be computed.
std::optional<uint64_t> compute_signature(const v1::Version& version, std::string* error);

// Returns the bench signature of an uploaded engine: its `bench` command (after the
// version's arguments), run as an engine child like any game's engine; nullopt with *error.
std::optional<uint64_t> compute_uploaded_signature(const std::string& executable,
                                                   const v1::UploadedEngine& engine,
                                                   std::string* error);

// Returns the node count of a bench's output (the last "Nodes searched" line), if any.
std::optional<uint64_t> parse_bench_output(const std::string& output);

}  // namespace sparring::worker
