// The evidence of a faulty game as the worker reports it (proto FaultEvidence): the faulty
// engine's transcript and stderr tail, compressed.
#pragma once

#include "match/game.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// Sets out's evidence from a game lost by a UCI engine's fault; leaves it unset otherwise.
void fault_evidence_to_proto(const match::GameResult& game, v1::Game* out);

}  // namespace sparring::worker
