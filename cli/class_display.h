// A run's result per CPU class of its workers and its class findings, as `sparring show` prints
// them (docs/statistics.md, "CPU classes").
#pragma once

#include <string>
#include <vector>

#include "sparring/v1/common.pb.h"

namespace sparring::cli {

// Adds a "class finding" row per class whose result differs from the rest of the run's.
void add_class_finding_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows);
// Prints the run's result per CPU class (when a worker of it reported a class, or there are
// two classes or more): workers, games, W/D/L, Elo with its 95% interval, time losses.
void print_classes(const v1::RunStatus& run);
// Returns a class's Elo and the half width of its 95% interval: "+12.0 ± 4.1".
std::string class_elo_text(const v1::ClassResult& c);

}  // namespace sparring::cli
