// The one table of run kinds, for the composition root (server.cpp) to hand to Core
// (Core::Options::kinds): a new kind is a module file and a line in registry.cpp.
#pragma once

#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

// Returns every kind's module, in the order of the RunKind enum.
RunKindTable all_run_kinds();

}  // namespace sparring::coordinator
