// The storage port of fault pauses: each run's count against its fault bound, and its faulty
// games tallied by version and fault (read only when a run pauses).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

class FaultStore {
  public:
    virtual ~FaultStore() = default;

    // Returns a run's count against its bound; nullopt for a run stored before bounds existed.
    virtual std::optional<RunFaults> find_run_faults(int64_t run_id) = 0;
    // Inserts or replaces a run's count.
    virtual void put_run_faults(const RunFaults& faults) = 0;
    // Returns the run's faulty games by the version at fault and the fault, most first, each
    // with its lowest game number (the partial index games_faults: only faulty games are read).
    virtual std::vector<FaultTally> fault_tallies(int64_t run_id) = 0;
};

}  // namespace sparring::coordinator
