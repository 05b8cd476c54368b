// CPU classes in a run's statistics (docs/statistics.md, "CPU classes"): each worker is tested
// against the rest of its own class, never against machines of another kind; the quarantine
// never takes a whole class; and a class whose result differs from the rest of the run's is a
// finding for the run's owner to judge, not a fault to purge.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// The class of workers that reported no CPU class (workers older than schema 26).
inline constexpr std::string_view kUnknownClass = "unknown";
// A class's result is a finding when it differs from the rest's at p below this (per class
// and test, read anew with every look at the run: rare for classes alike, sure for a real
// difference of a few Elo over thousands of games).
inline constexpr double kClassFindingP = 1e-3;

// Returns the CPU class a worker counts in: its class, or kUnknownClass for none.
std::string class_name(std::string_view cpu_class);

// Tests each worker's counted pairs, time losses and faults against the rest of its own CPU
// class's (each fit's counts, time_losses, faults and cpu_class are read; fit, time_loss_p,
// fault_p, class_rest_pairs and quarantined are set). A worker alone in its class has no rest
// to be tested against (p 1). With threshold > 0, a worker is quarantined when one of its
// p-values is below it and its pairs are fewer than half its class's; and the quarantined
// workers of a class hold fewer than half its pairs together (the least plausible first), so
// that a class is never quarantined whole: a class that differs is a finding instead.
void fit_within_classes(std::vector<WorkerFit>& fits, double threshold);

// Returns a run's result per CPU class of its workers' fits, most games first.
std::vector<ClassResult> class_results(const std::vector<WorkerFit>& fits);

// Returns the classes whose result differs from the rest of the run's (with two classes or
// more; classes in class_results' order): their mean pair score (stats::score_difference) or
// their time losses (stats::excess_loss_p, more than the rest's) at p below threshold. The
// first class, when it holds half the run's pairs or more, is what the others differ from and
// no finding itself (so two classes make one finding at most). Each says so in a line
// ("zen5-avx512: +12.0 ± 4.1 Elo, the rest +2.0 ± 3.0 (p 2.1e-05)").
std::vector<ClassFinding> class_findings(const std::vector<ClassResult>& classes,
                                         double threshold = kClassFindingP);

}  // namespace sparring::coordinator
