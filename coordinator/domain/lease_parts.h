// What the lease files of Core (leases.cpp, reports.cpp) share.
#pragma once

#include <cstdint>
#include <string>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Returns "lease N" for messages.
std::string lease_name(int64_t id);

// Returns a worker's speed with a version's engine, measured at `ms`.
WorkerSpeed worker_speed(int64_t worker_id, int64_t version_id, uint64_t nps, int games_at_once,
                         int64_t ms);

}  // namespace sparring::coordinator
