// Turning a lease into the match runner's configuration and jobs, and finished pairs into
// report messages.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "match/runner.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// The executables of a lease's uploaded engines, by SHA-256 (see EngineCache).
using EnginePaths = std::map<std::string, std::string>;

// Returns the runner configuration of a lease (test version first); nullopt with *error when
// a version's parameters do not parse or an uploaded engine is not in `engines`.
std::optional<match::MatchConfig> match_config(const v1::Lease& lease, int concurrency,
                                               const std::string& site, std::string* error,
                                               const EnginePaths& engines = {});
// Returns the lease's pairs as runner jobs numbered by their pair index in the run.
std::vector<match::PairJob> pair_jobs(const v1::Lease& lease);
// Writes a finished pair as a report entry (index within the lease).
void pair_to_proto(const match::PairResult& pair, uint64_t first_pair, v1::GamePair* out);

}  // namespace sparring::worker
