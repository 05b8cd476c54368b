// Turning a lease into the match runner's configuration and jobs, and finished pairs into
// report messages.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "match/child_process.h"
#include "match/runner.h"
#include "match/sandbox.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// The executables of a lease's uploaded engines, by SHA-256 (see EngineCache).
using EnginePaths = std::map<std::string, std::string>;

// The resource limits of the worker's external engine processes.
struct EngineLimits {
    // Address space allowed beyond the hash table the run reserved (binary, networks,
    // threads); 0: no limit at all.
    int64_t memory_headroom_mb = 0;
    int64_t cpu_seconds = 0;    // CPU time of one engine process (a lease's games); 0: none
    int64_t max_processes = 0;  // RLIMIT_NPROC of an engine process (its user's); 0: none
    int64_t max_file_mb = 0;    // RLIMIT_FSIZE of an engine process; 0: none
    // The sandbox uploaded engines run in (null: none), and whether the engines installed on
    // the machine (--uci-engines) run in it too.
    std::shared_ptr<const match::Sandbox> sandbox;
    bool sandbox_installed = false;
    // The cores games are pinned to, as many a game as the run's threads (empty: unpinned).
    std::vector<int> cores;
    // Where each engine's process tree gets a cgroup of its own (null: the rlimits alone):
    // its memory (as the address-space limit), processes (max_processes) and the run's cores.
    std::shared_ptr<const match::EngineGroups> groups;
};

// Returns how an external engine's process (its games, its bench) is confined: the limits, and
// the sandbox with the engine's files visible (an uploaded engine's whole cached directory).
// `command` is the file the version runs (an uploaded engine's path in the cache).
match::ChildOptions engine_confinement(const v1::Version& version, const std::string& command,
                                       const EngineLimits& limits);

// Returns the engine of a UCI or uploaded version as its games, its bench and its options check
// start it: its file (an uploaded engine's in `engines`) and arguments, confined by limits, with
// no UCI options yet; nullopt with *error when an uploaded engine is not in `engines`.
std::optional<match::UciSpec> confined_engine(const v1::Version& version,
                                              const EngineLimits& limits,
                                              const EnginePaths& engines, std::string* error);

// Returns the memory a run reserves for one engine of a version, in MiB: the built-in
// engine's hash, or an external engine's Hash option in any spelling an engine reads as Hash
// (16 when absent or unreadable), as the coordinator's scheduler counts it.
int64_t reserved_memory_mb(const v1::Version& version);
// Returns a built-in version's hash in MiB (0: the engine's default), or nullopt with *error
// when it is over the bound the coordinator checks too: the worker holds to it whatever a
// lease says.
std::optional<int> builtin_hash_mb(const v1::Version& version, std::string* error);
// Returns the games a worker of `concurrency` cores plays at once for a lease: its cores over
// the run's threads per game (0 when one game needs more).
int games_at_once(const v1::Lease& lease, int concurrency);
// Returns why the lease's hash tables do not fit in memory_mb with as many games at a time as
// `cores` hold (the scheduler's own sum, so a lease it granted fits), or "" when they do.
std::string memory_refusal(const v1::Lease& lease, int cores, int64_t memory_mb);

// Returns the runner configuration of a lease (test version first), external engines
// confined by limits; nullopt with *error when a version's parameters do not parse, its UCI
// options cannot be sent safely or an uploaded engine is not in `engines`.
std::optional<match::MatchConfig> match_config(const v1::Lease& lease, int concurrency,
                                               const std::string& site, std::string* error,
                                               const EngineLimits& limits = {},
                                               const EnginePaths& engines = {});
// Returns the lease's pairs as runner jobs numbered by their pair index in the run.
std::vector<match::PairJob> pair_jobs(const v1::Lease& lease);
// Returns how the service names the way a game ended.
v1::GameEnding game_ending(match::Termination termination);
// Writes a finished pair as a report entry (index within the lease).
void pair_to_proto(const match::PairResult& pair, uint64_t first_pair, v1::GamePair* out);

}  // namespace sparring::worker
