// Builds per instruction set on the worker (issue 52; docs/engines.md "Builds per instruction
// set"): the build of each uploaded version it plays, what its games and reports say of it,
// and the SIGILL that says a build needs a CPU this worker lacks.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// A build that died of SIGILL here. A lease's play throws it when a game's uploaded engine
// does, so that the lease is handed back as RELEASE_REASON_CPU_UNSUPPORTED and the game is
// never reported as that engine's crash.
struct BuildUnsupported : std::runtime_error {
    BuildUnsupported(int64_t version, std::string level_name, const std::string& what)
        : std::runtime_error(what), version_id(version), level(std::move(level_name)) {}
    int64_t version_id = 0;
    std::string level;  // build_level_name
};

// The builds this worker found its CPU cannot run, by version id (build_level_names).
using RefusedBuilds = std::map<int64_t, std::vector<std::string>>;

// Rewrites each uploaded version of the lease to the build it plays here: of its builds, the
// one of the highest level this CPU runs (cpu_levels) that did not die of SIGILL here, moved
// into UploadedEngine's own fields (sha256, size, archive, entry, level; builds cleared).
// Returns "" or why a version has no build here.
std::string choose_builds(v1::Lease& lease, std::span<const std::string> cpu_levels,
                          const RefusedBuilds& refused);

// Returns the build a version chosen so plays (build_level_name of its level); "" for a version
// that is not uploaded.
std::string build_of(const v1::Version& version);

// Returns the builds a lease's games are played with, once choose_builds chose them.
v1::GameBuilds game_builds(const v1::Lease& lease);

// Throws BuildUnsupported when a game of the pair was lost by an uploaded engine that died of
// SIGILL (its evidence's reason says so).
void throw_if_sigill(const v1::Lease& lease, const v1::GamePair& pair);

}  // namespace sparring::worker
