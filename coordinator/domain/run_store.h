// The store of runs with what hangs off them: their books, follow-ups, links to other runs,
// changes and pool of free pairs. Owned by the domain; SqliteStorage implements it as part of
// Storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// What a listing of runs selects: filters, the order and one page.
struct RunQuery {
    std::vector<RunState> states;  // any when empty
    std::optional<RunKind> kind;
    std::string version;               // the test or base version's name; any when empty
    std::string text;                  // found in the description, a version name or the result
    std::optional<std::string> owner;  // the submitter's user name ("" for runs without one)
    std::string time_control;          // as stored ("10+0.1", "nodes=1000"); any when empty
    std::string result;                // the result starts with it ("H1"); any when empty
    int64_t created_from_ms = 0;       // created at or after; 0: any
    int64_t created_until_ms = 0;      // created before; 0: any
    bool active_first = false;  // active runs by priority first, then the others newest first
    int offset = 0;
    int limit = 100;
};

// What every kind may read of the runs (see KindReads).
class RunReads {
  public:
    virtual ~RunReads() = default;

    virtual std::optional<Run> find_run(int64_t id) = 0;
    virtual Book load_book(int64_t run_id) = 0;
};

class RunStore : public virtual RunReads {
  public:
    // Inserts a run with its book.
    virtual int64_t insert_run(const Run& run) = 0;
    // Returns runs in the given states (all when empty), newest first.
    virtual std::vector<Run> list_runs(const std::vector<RunState>& states, int limit) = 0;
    // Returns the page of runs a query selects (newest first unless active_first), and sets
    // *total to how many it selects in all.
    virtual std::vector<Run> find_runs(const RunQuery& query, int64_t* total) = 0;
    // Returns how many active runs a user owns.
    virtual int64_t count_active_runs_of_owner(std::string_view owner) = 0;
    // Writes what a user may change of a run after its submission: priority, throughput,
    // games and description.
    virtual void update_run_settings(const Run& run) = 0;
    // Writes a run's state, result, progress, counts and statistics.
    virtual void update_run(const Run& run) = 0;

    // Records the follow-up a run starts when it ends.
    virtual void insert_follow_up(int64_t run_id, const FollowUpSpec& follow_up) = 0;
    // Returns a run's follow-up.
    virtual std::optional<FollowUpSpec> find_follow_up(int64_t run_id) = 0;
    // Records that a run leads to another.
    virtual void insert_run_link(const RunLink& link) = 0;
    // Returns the links of a run, as parent and as child.
    virtual std::vector<RunLink> run_links(int64_t run_id) = 0;
    // Records a change made to a run after its submission.
    virtual void insert_run_change(const RunChange& change) = 0;
    // Returns the changes made to a run, oldest first.
    virtual std::vector<RunChange> run_changes(int64_t run_id) = 0;
    // Returns up to limit changes of a run, oldest first, before the newest skip_newest ones,
    // and sets *total to how many the run has.
    virtual std::vector<RunChange> latest_run_changes(int64_t run_id, uint32_t skip_newest,
                                                      uint32_t limit, int64_t* total) = 0;

    // Adds a range of pairs back to a run's pool.
    virtual void insert_free_pairs(int64_t run_id, PairRange range) = 0;
    // Removes up to max_count pairs from the start of a run's lowest free range.
    virtual std::optional<PairRange> take_free_pairs(int64_t run_id, uint64_t max_count) = 0;
    virtual void delete_free_pairs(int64_t run_id) = 0;
};

}  // namespace sparring::coordinator
