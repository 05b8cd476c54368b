// How /workers shows each worker's machine (issue 52): its CPU class in the workers' table and
// a "Machines" section with every part of its identity (WorkerStatus.identity, cpu_class).
#pragma once

#include <string>
#include <vector>

#include "sparring/v1/user.pb.h"

namespace sparring::coordinator::web {

// Returns a worker's class cell: its CPU class, and the CPU under it ("-" when none reported).
std::string worker_class_cell(const v1::WorkerStatus& worker);

// Returns the "Machines" section of the workers in order ("" when none reported an identity):
// a table of each worker's class, CPU, instruction-set levels, flags, cores and core types,
// OS and kernel, and machine id.
std::string machines_html(const std::vector<const v1::WorkerStatus*>& workers);

}  // namespace sparring::coordinator::web
