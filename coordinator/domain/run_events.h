// Logs what the coordinator decides by itself, which no call reports: runs that end (SPRT
// verdict, game limit, a stop) and leases that expire.
#pragma once

#include <cstdint>
#include <set>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

class RunEvents {
  public:
    // Logs the runs that stopped being active since the last call (none on the first call)
    // and the leases that just expired.
    void poll(Core& core, Storage& storage, int expired_leases);

  private:
    bool first_ = true;
    std::set<int64_t> active_;
};

}  // namespace sparring::coordinator
