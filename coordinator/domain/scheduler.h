// Sharing workers among active runs: strict priority, then among runs of equal priority an equal
// share of the cores at work for each user (owner), then each run's throughput share of its
// owner's cores, and never a run the worker cannot play.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "coordinator/domain/version_builds.h"
#include "coordinator/domain/worker_controls.h"

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
    std::vector<CandidateBuilds> builds;    // of each uploaded version (issue 52)
    int64_t memory_mb_per_game = 0;         // both engines' hash tables
    int threads = 1;                        // cores one game holds (the run's threads)
    bool fixed_nodes = false;               // node- or depth-limited: no clock (issue 52)
    std::string owner;                      // the user who submitted it
    // It has pairs left to lease (issue 52, fair share). A run without (all its pairs out) is
    // never chosen, but its active cores still count to its owner's share.
    bool leasable = true;
    // Pairs leased and not handed back (played, or out now): between two users of equal cores
    // at work, the one served fewer pairs so far goes first, so none waits for ever.
    uint64_t served_pairs = 0;
};

// What the scheduler knows of the worker asking for work.
struct WorkerProfile {
    int concurrency = 1;
    int64_t memory_mb = 0;
    std::vector<std::string> uci_engines;
    bool accepts_uploaded_engines = false;
    std::vector<int64_t> refused_versions;     // bench signature mismatches
    std::vector<int64_t> barred_runs;          // purged from, or quarantined in
    std::vector<int64_t> failed_runs;          // runs it failed too often to be given again
    std::vector<std::string> isa_levels;       // its CPU's instruction-set levels (issue 52)
    std::vector<RefusedBuild> refused_builds;  // builds that died of SIGILL on it
    WorkerControls controls;                   // the runs it takes, whose first (issue 52)
};

// Returns the games a worker plays at once for a run: its cores (concurrency) over the cores
// one game holds, 0 when it has too few for one.
int games_at_once(int concurrency, int threads);

// Why a worker does not play a run (a run waits for these, waiting.h): what the profile tells
// (incapability), then what the coordinator learnt of the worker in the run (quarantined, too
// slow), then the runs it plays instead (outranked: of higher priority; busy: shared by
// throughput); no worker connected at all.
enum class WaitReason {
    Barred,
    NoUploads,
    Failed,
    NoEngine,
    RefusedVersion,
    FewCores,
    Memory,
    Quarantined,
    TooSlow,
    Outranked,
    Busy,
    NoWorkers,
    NoBuild,    // no build of an uploaded version runs on its CPU (issue 52)
    NodesOnly,  // it takes only node- and depth-limited runs (--only-fixed-nodes)
    Threads,    // the run's threads are out of its --min-threads/--max-threads
};
// The last reason: every reason is from Barred to it (the metrics serve each at 0 first).
constexpr WaitReason kLastWaitReason = WaitReason::Threads;

// Returns a reason's name in metrics and the API: "no_engine", "cores", ...
const char* wait_reason_name(WaitReason reason);

// Why one worker declines one run: the reason, what the worker lacks said of it ("lacks the UCI
// engine '/usr/games/glaurung'"), and what the run needs said of any worker declining it so
// ("no /usr/games/glaurung"), which counts the workers per reason.
struct Decline {
    WaitReason reason = WaitReason::Barred;
    std::string text;
    std::string need;
};

// Returns why the worker cannot play the run, or nullopt when it can.
std::optional<Decline> decline(const RunCandidate& run, const WorkerProfile& worker);

// Returns why the worker cannot play the run, or an empty string when it can.
std::string incapability(const RunCandidate& run, const WorkerProfile& worker);

// Returns whether run a is served before run b of the same owner and priority: the fewer active
// cores per unit of throughput, then the older.
bool served_before_within_owner(const RunCandidate& a, const RunCandidate& b);

// What an owner's runs of one priority hold: the cores at work on them and the pairs served.
struct OwnerShare {
    int64_t cores = 0;
    uint64_t pairs = 0;
    bool operator==(const OwnerShare&) const = default;
};
// The shares of each owner at each priority, by (priority, owner).
using OwnerShares = std::map<std::pair<int, std::string>, OwnerShare>;

// Returns each owner's share at each priority over the runs, leasable or not.
OwnerShares owner_shares(std::span<const RunCandidate> runs);

// Returns whether one owner's runs of a priority are served before another's of the same
// priority: the fewer cores at work, then the fewer pairs served, then the name.
bool owner_served_before(const OwnerShare& a, const std::string& owner_a, const OwnerShare& b,
                         const std::string& owner_b);

// Returns whether run a is served before run b (issue 52, fair share): the higher priority, then
// the owner served first at that priority (owner_served_before), then
// served_before_within_owner. So among equal priorities each user with runs to lease gets an
// equal share of the cores however many runs the user has, and a user's runs share the user's
// cores by throughput.
bool served_before(const RunCandidate& a, const RunCandidate& b, const OwnerShares& shares);

// Returns why the worker's fleet controls keep it from the run (only node- and depth-limited
// runs, threads out of its range), or nullopt when they do not (worker_controls.cpp).
std::optional<Decline> controls_decline(const RunCandidate& run, const WorkerControls& controls);

// Returns whether a worker preferring an owner's runs (--prefer-owner) plays the run first.
bool preferred_run(const RunCandidate& run, const WorkerProfile& worker);

// Returns the run the worker should play: among the leasable runs it can play, the first served
// (the preferred owner's runs first, worker_controls.cpp; the cores of every run listed,
// leasable or not, count to its owner).
std::optional<int64_t> choose_run(std::span<const RunCandidate> runs, const WorkerProfile& worker);

// The active runs with pairs left to lease, kept in memory in the order they are served, so that
// a lease looks at the runs served before the one it gets instead of reading every active run;
// and the active runs with all their pairs out but cores at work, which count to their owner's
// share. Two levels: the groups of one owner's runs of one priority, in serving order (priority,
// then owner_served_before of their shares), and each group's leasable runs in the order
// served_before_within_owner gives; so a lease on one run moves that run within its group and
// its group among the groups, not every run of its owner.
// The core fills it once from storage, touches a run whenever it publishes an event that changes
// what the scheduler knows of it (a run submitted, modified or ended; a lease granted or ended; a
// purge), and reads the touched runs again before the next choice. Thread-safe.
class CandidatePool {
  public:
    // Marks a run as changed: it is read again before the next choice.
    void touch(int64_t run_id);
    // Returns the runs touched since the last call, forgetting them; sets *all (and empties
    // the pool) when every active run is to be read: the first time.
    std::vector<int64_t> take_touched(bool* all);
    // Inserts a run, or replaces it (a run that is not leasable only counts its cores).
    void put(RunCandidate run);
    void remove(int64_t run_id);
    // Returns the first leasable run in serving order that accept takes (accept may not change
    // the pool), or nullopt.
    std::optional<int64_t> first(const std::function<bool(const RunCandidate&)>& accept) const;
    // Returns the leasable runs held.
    size_t size() const;
    // Returns an owner's share at a priority, as the pool counts it.
    OwnerShare share_of(int priority, const std::string& owner) const;

  private:
    struct WithinOwner {
        bool operator()(const RunCandidate& a, const RunCandidate& b) const {
            return served_before_within_owner(a, b);
        }
    };
    using Runs = std::set<RunCandidate, WithinOwner>;
    // One owner's runs of one priority.
    struct Group {
        int priority = 0;
        std::string owner;
        OwnerShare share;    // of all its runs, leasable or not
        size_t members = 0;  // its runs, leasable or not
        Runs runs;           // its leasable runs, in serving order
    };
    struct GroupOrder {
        bool operator()(const Group* a, const Group* b) const;
    };
    struct Entry {
        Group* group = nullptr;
        OwnerShare share;                   // the run's part of its group's
        std::optional<Runs::iterator> run;  // when leasable
    };
    void remove_locked(int64_t run_id);

    mutable std::mutex mutex_;  // guards what follows up to touched_mutex_
    std::map<std::pair<int, std::string>, Group> groups_;  // by (priority, owner)
    std::set<Group*, GroupOrder> order_;          // the groups with leasable runs, in serving order
    std::unordered_map<int64_t, Entry> entries_;  // by run id
    size_t leasable_ = 0;
    std::mutex touched_mutex_;  // guards what follows
    bool loaded_ = false;
    std::unordered_set<int64_t> touched_;
};

}  // namespace sparring::coordinator
