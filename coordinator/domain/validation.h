// Checks of what users and workers send, with messages that say what to fix.
#pragma once

#include "absl/status/status.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Checks a new version and, for the built-in engine, resolves its parameter set into
// version.params_json; INVALID_ARGUMENT explains the first problem.
absl::Status check_version(Version& version);
// Checks a run specification and fills in defaults (throughput, SPRT model); the versions
// themselves are looked up by the caller. INVALID_ARGUMENT explains the first problem.
absl::Status check_run_spec(RunSpec& spec);
// Checks a worker's self-description; INVALID_ARGUMENT explains the first problem.
absl::Status check_worker(const Worker& worker);

}  // namespace sparring::coordinator
