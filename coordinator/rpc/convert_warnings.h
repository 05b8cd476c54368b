// The engine-output warnings between the protocol and the domain (match/output_checks.h): what
// a worker reports of a game, checked within bounds; what a run's status shows of them.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/domain/types.h"
#include "sparring/v1/common.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Reads a game's engine-output warnings into *out: each a known check, at most one of each
// per version side, a count of 1 to match::kMaxOutputCount, an example line and a go command
// of at most match::kMaxOutputExampleBytes (made valid UTF-8); INVALID_ARGUMENT naming the
// pair otherwise (*out is then left as it was).
absl::Status output_warnings_from_proto(const v1::Game& in, uint32_t pair,
                                        std::vector<GameOutputWarning>* out);
// Adds a run's engine-output warnings to its status, each with the version's name and its
// line ("glaurung answers `bestmove (none)` under `go nodes`: 38 games").
void output_warnings_to_proto(const Run& run, const std::vector<OutputWarningCount>& in,
                              v1::RunStatus* out);

}  // namespace sparring::coordinator
