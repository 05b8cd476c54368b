// The bounds of a run's settings: one copy for the CLI, which checks its flags against them,
// and the coordinator, which holds every run to them (coordinator/domain/validation.h).
#pragma once

#include <cstdint>

namespace sparring {

// The most games a run plays, and a run's verification (games come in pairs: an even number).
inline constexpr int64_t kMaxGames = 1'000'000'000;
// A run's priority: users give their runs kMinPriority..kMaxUserPriority (unless the operator
// sets another range, PriorityRange), admins (and the runs the coordinator starts, which keep
// their parent's) anything in kMinPriority..kMaxPriority.
inline constexpr int kMinPriority = -1000;
inline constexpr int kMaxUserPriority = 100;
inline constexpr int kMaxPriority = 1000;
// The priorities users (not admins) may give their runs: the coordinator's
// --user-priority-min/--user-priority-max, within kMinPriority..kMaxPriority.
struct PriorityRange {
    int min = kMinPriority;
    int max = kMaxUserPriority;
};
// A run's share of the workers among runs of the same priority, percent.
inline constexpr int kMinThroughput = 1;
inline constexpr int kMaxThroughput = 10000;

}  // namespace sparring
