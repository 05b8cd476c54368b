// A worker's identity (issue 52) in the JSON column workers.identity.
#pragma once

#include <string>

#include "coordinator/domain/worker_identity.h"

namespace sparring::coordinator {

// Returns the identity as the column's JSON text: only what is set ("{}" for none).
std::string worker_identity_column(const WorkerIdentity& identity);
// Reads the column's text ("" or "{}": none); throws StorageError when it is not such JSON.
WorkerIdentity read_worker_identity(const std::string& text);

}  // namespace sparring::coordinator
