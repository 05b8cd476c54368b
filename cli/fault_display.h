// A run's fault bound and fault pause as the CLI reads and prints them (submit, modify,
// resume, show).
#pragma once

#include <string>
#include <vector>

#include "common/fault_bound.h"
#include "sparring/v1/common.pb.h"

namespace sparring::cli {

// Parses a --fault-bound flag ("25%/40", "25%", "off"); throws UsageError saying what is wrong.
FaultBound parse_fault_bound_flag(const std::string& text);
// Sets a request's bound.
void fault_bound_to_proto(const FaultBound& bound, v1::FaultBound* out);
// Returns a run's bound as the flag takes it ("10%/20", "off").
std::string bound_text(const v1::FaultBound& bound);
// Adds `show`'s rows of a run's faults: the bound and the faulty games counted against it, and
// why it is paused.
void add_fault_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows);

}  // namespace sparring::cli
