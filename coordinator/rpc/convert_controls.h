// A worker's fleet controls (issue 52) between the protocol and the domain.
#pragma once

#include "coordinator/domain/worker_controls.h"
#include "sparring/v1/common.pb.h"

namespace sparring::coordinator {

// Reads the controls a worker registers with, as sent (strings made valid UTF-8, numbers
// capped so that the domain's checks refuse what is out of range rather than see it wrap).
WorkerControls worker_controls_from_proto(const v1::WorkerControls& in);
// Writes a worker's controls for its status.
void worker_controls_to_proto(const WorkerControls& in, v1::WorkerControls* out);

}  // namespace sparring::coordinator
