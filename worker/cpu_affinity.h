// --cpu-affinity (issue 52, part D): the cores a worker's games are pinned to, as a list of CPU
// numbers ("0-7,16-23") or, on a hybrid CPU, a core type ("performance", "efficiency").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// Parses a Linux CPU list ("0-7,16-23", "3", "0,2-3"): the CPUs in ascending order without
// repeats. Throws UsageError naming the flag for anything else (an empty item, a range
// backwards, a number over 4095).
std::vector<int> parse_cpu_list(std::string_view list);

// Returns the cores --cpu-affinity VALUE names of the cores this worker may use (`allowed`,
// its own affinity): a core type of `types` by name (case ignored), or a CPU list. Throws
// UsageError when a listed CPU is not allowed, a core type is unknown (the machine's named), or
// none is left.
std::vector<int> affinity_cores(std::string_view value, const std::vector<int>& allowed,
                                const std::vector<v1::CoreType>& types);

// Returns cores as a CPU list ("0-7,16-23").
std::string cpu_list_text(const std::vector<int>& cores);

}  // namespace sparring::worker
