// Sharing workers among active runs: strict priority, then each run's throughput share of
// the cores at work, and never a run the worker cannot play.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparring::coordinator {

// What the scheduler knows of an active run that has pairs left to lease.
struct RunCandidate {
    int64_t run_id = 0;
    int priority = 0;
    int throughput = 100;                   // share among equal priorities, in percent
    int active_cores = 0;                   // concurrency of the workers playing it now
    std::vector<int64_t> version_ids;       // both versions
    std::vector<std::string> uci_commands;  // external engines a worker must have
    bool uploaded_engines = false;          // a version runs an uploaded engine file
    int64_t memory_mb_per_game = 0;         // both engines' hash tables
    int threads = 1;                        // cores one game holds (the run's threads)
};

// What the scheduler knows of the worker asking for work.
struct WorkerProfile {
    int concurrency = 1;
    int64_t memory_mb = 0;
    std::vector<std::string> uci_engines;
    bool accepts_uploaded_engines = false;
    std::vector<int64_t> refused_versions;  // bench signature mismatches
    std::vector<int64_t> barred_runs;       // purged from, or quarantined in
    std::vector<int64_t> failed_runs;       // runs it failed too often to be given again
};

// Returns the games a worker plays at once for a run: its cores (concurrency) over the cores
// one game holds, 0 when it has too few for one.
int games_at_once(int concurrency, int threads);

// Returns why the worker cannot play the run, or an empty string when it can.
std::string incapability(const RunCandidate& run, const WorkerProfile& worker);

// Returns the run the worker should play: among the runs it can play, the highest priority,
// then the lowest active cores per unit of throughput, then the oldest.
std::optional<int64_t> choose_run(std::span<const RunCandidate> runs, const WorkerProfile& worker);

}  // namespace sparring::coordinator
