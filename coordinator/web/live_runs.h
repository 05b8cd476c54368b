// What the live run pages show, kept from the domain's events: the hub (live.h) asks for a
// run's update at most once per interval, and the update is written from the events that came
// since, without reading the run (issue 50).
//
// A report's RunProgressed carries the run's counts, pentanomial, Elo, LLR and leased pairs,
// and the reporting worker's share: the page's figures, plots and the workers' games follow
// it with no read. What no event carries (the workers' fits, the leases out, the clocks, the
// kinds' fields but a training's epoch) is read whole (GetRun and GetLlrHistory) when a
// viewer first joins, after the run ended or was purged, and, while the run changes, at most
// once per tables interval; never once per event.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "coordinator/domain/events.h"
#include "sparring/v1/user.pb.h"

namespace sparring::coordinator::web {

class LiveRuns {
  public:
    // Reads a run whole into run and, when it can, its LLR history with the leases out;
    // returns false when the run cannot be read.
    using Reader =
        std::function<bool(int64_t run_id, v1::RunStatus* run, std::optional<v1::LlrHistory>*)>;

    LiveRuns(Reader reader, std::chrono::milliseconds tables_interval);

    // Applies an event to the run it names, if a page of that run is kept; returns the run's
    // id (0 when the event names none). Quick: it runs on the event bus's thread.
    int64_t apply(const Event& event);

    // Returns a run's next update as a server-sent event; nullopt when nothing changed since
    // the last one or the run cannot be read. Sets *again when the run's tables changed but
    // were read less than a tables interval ago: ask once more later.
    std::optional<std::string> update(int64_t run_id, bool* again);

    // Forgets a run nobody views any more.
    void forget(int64_t run_id);

    // Counts the whole reads of runs since the start (the measure: 0 per event between them).
    uint64_t whole_reads() const;

  private:
    struct Page {
        v1::RunStatus run;
        std::optional<v1::LlrHistory> history;
        std::chrono::steady_clock::time_point read_at;
        bool changed = false;         // an event changed the figures since the last update
        bool tables_changed = false;  // an event changed what only a whole read shows
        bool stale = false;           // the run ended or was purged: read it whole at once
        // The latest progress events: replayed onto a whole read, since the events of reports
        // committed after the read's snapshot may have come while it read.
        std::deque<RunProgressed> recent;
    };

    // Applies a report's progress to a page when it is newer than what the page shows.
    static void progress(Page& page, const RunProgressed& event);

    Reader reader_;
    const std::chrono::milliseconds tables_interval_;
    mutable std::mutex mutex_;  // pages_, whole_reads_; never held while reading
    std::map<int64_t, Page> pages_;
    uint64_t whole_reads_ = 0;
};

}  // namespace sparring::coordinator::web
