// A run's result per CPU class and its class findings, from the domain (class_stats.h) to
// RunStatus.classes and class_findings.
#pragma once

#include "coordinator/domain/types.h"
#include "sparring/v1/common.pb.h"

namespace sparring::coordinator {

// Adds a run's per-class results and class findings to its status.
void classes_to_proto(const RunDetails& in, v1::RunStatus* out);

}  // namespace sparring::coordinator
