// Builds per instruction set (issue 52; docs/engines.md "Builds per instruction set"): the
// checks of an uploaded version's builds, and what the scheduler knows of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// At most this many builds a version holds (its file and the further ones).
inline constexpr size_t kMaxEngineBuilds = 8;

// Checks an uploaded version's build levels and further builds: known levels, each level
// once, each build a hex SHA-256 and a safe archive entry.
absl::Status check_engine_builds(const Version& version);

// An uploaded version's builds, by the instruction-set level each needs (common/engine_builds.h):
// a worker plays a run only if it runs a build of each version (RunCandidate::builds).
struct CandidateBuilds {
    int64_t version_id = 0;
    std::string version;              // its name
    std::vector<std::string> levels;  // Version::build_levels(): "" for a portable build
};

// A build of a version a worker found its CPU cannot run: it died of SIGILL there
// (build_refusals).
struct RefusedBuild {
    int64_t version_id = 0;
    std::string level;  // build_level_name: "x86-64-v4", "portable"
};

}  // namespace sparring::coordinator
