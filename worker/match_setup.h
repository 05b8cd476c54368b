// Turning a lease into the match runner's configuration and jobs, and finished pairs into
// report messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "match/runner.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// Returns the runner configuration of a lease (test version first); nullopt with *error when
// a version's parameters do not parse.
std::optional<match::MatchConfig> match_config(const v1::Lease& lease, int concurrency,
                                               const std::string& site, std::string* error);
// Returns the lease's pairs as runner jobs numbered by their pair index in the run.
std::vector<match::PairJob> pair_jobs(const v1::Lease& lease);
// Writes a finished pair as a report entry (index within the lease).
void pair_to_proto(const match::PairResult& pair, uint64_t first_pair, v1::GamePair* out);

}  // namespace sparring::worker
