// The evidence of faulty games between the protocol and the domain (domain/evidence.h): what
// a worker sends, checked and inflated within bounds; what `faults` and `repro` read.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "coordinator/domain/evidence.h"
#include "coordinator/domain/storage.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Returns a game's evidence as sent, checked: only on a faulty game, each text within its
// bound, each stream a zlib stream inflating within its bound (a decompression bomb is
// refused after kMaxTranscriptBytes); INVALID_ARGUMENT naming the pair otherwise.
absl::StatusOr<GameEvidence> evidence_from_proto(const v1::FaultEvidence& in, GameEnding ending,
                                                 uint32_t pair);

// Fills a ListFaults response from storage; NOT_FOUND for an unknown run.
absl::Status faults_to_proto(Storage& storage, int64_t run_id, uint32_t max_games,
                             v1::ListFaultsResponse* out);
// Fills a GetFault response; NOT_FOUND for an unknown run or a game that is not faulty.
absl::Status fault_to_proto(Storage& storage, int64_t run_id, uint64_t game, v1::FaultyGame* out);

}  // namespace sparring::coordinator
