// A worker's identity (issue 52) between the protocol and the domain.
#pragma once

#include "coordinator/domain/worker_identity.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

// Reads the identity a worker registers with, as sent: strings made valid UTF-8, lists and
// strings copied only a little past their bounds, so that the domain's checks refuse what is
// over them (check_worker_identity) without copying a flood first.
WorkerIdentity worker_identity_from_proto(const v1::WorkerIdentity& in);
// Writes a worker's identity for its status.
void worker_identity_to_proto(const WorkerIdentity& in, v1::WorkerIdentity* out);

}  // namespace sparring::coordinator
