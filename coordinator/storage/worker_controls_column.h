// A worker's fleet controls (issue 52) in the JSON column workers.controls.
#pragma once

#include <string>

#include "coordinator/domain/worker_controls.h"

namespace sparring::coordinator {

// Returns the controls as the column's JSON text: only what is set ("{}" for none).
std::string worker_controls_column(const WorkerControls& controls);
// Reads the column's text ("" or "{}": none); throws StorageError when it is not such JSON.
WorkerControls read_worker_controls(const std::string& text);

}  // namespace sparring::coordinator
