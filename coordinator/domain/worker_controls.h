// The fleet controls a worker registers with (issue 52, part D; docs/operations.md "Fleet
// controls"): the runs it takes (only node- and depth-limited ones, threads in a range), whose
// runs it plays first, and what it only reports (its pinning, its exit when idle).
#pragma once

#include <absl/status/status.h>

#include <cstddef>
#include <string>

namespace sparring::coordinator {

struct WorkerControls {
    bool only_fixed_nodes = false;   // takes only node- and depth-limited runs
    std::string prefer_owner;        // plays this user's runs first ("": none)
    int min_threads = 0;             // takes only runs of at least these threads a game (0: any)
    int max_threads = 0;             // ... and at most these (0: any)
    std::string cpu_affinity;        // as given to the worker ("": none); shown only
    int exit_when_idle_seconds = 0;  // shown only

    // The longest prefer_owner and cpu_affinity a worker's registration keeps.
    static constexpr std::size_t kMaxText = 256;

    // Returns whether threads a game lie in the range the worker takes.
    bool takes_threads(int threads) const {
        return (min_threads <= 0 || threads >= min_threads) &&
               (max_threads <= 0 || threads <= max_threads);
    }
    // Returns the range as the worker takes it: "2 to 4 threads", "at least 2 threads", "at
    // most 1 thread"; "" when it takes any.
    std::string threads_range() const;
};

// Checks a worker's controls as it registered them (untrusted): the owner's name as names are,
// the affinity's text bounded, threads in 0..1024 and the least not over the most, the idle
// time within 30 days; INVALID_ARGUMENT says what is wrong.
absl::Status check_worker_controls(const WorkerControls& controls);

}  // namespace sparring::coordinator
