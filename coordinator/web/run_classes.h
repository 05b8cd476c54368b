// How the run page shows a run's result per CPU class of its workers (RunStatus.classes) and
// the classes whose result differs from the rest (RunStatus.class_findings).
#pragma once

#include <string>

#include "sparring/v1/common.pb.h"

namespace sparring::coordinator::web {

// Returns the run's "CPU classes" section ("" when every worker's class is unknown, as with
// workers that report no identity): a table of each class's workers, games, W/D/L, Elo with
// its 95% interval and time losses, and each class finding as a paragraph for the owner.
std::string classes_html(const v1::RunStatus& run);

}  // namespace sparring::coordinator::web
