// Core: what is read of runs: one run with its kind's state and, when shown alone, its
// details; the lists of runs; and a run's games as PGN.
#include <algorithm>

#include "common/printable.h"
#include "coordinator/domain/class_stats.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/run_kind.h"

namespace sparring::coordinator {

namespace {

constexpr uint32_t kDefaultExportGames = 1000;
constexpr uint32_t kMaxExportGames = 10000;
constexpr size_t kMaxExportBytes = 2 << 20;  // well below gRPC's 4 MiB message limit

}  // namespace

absl::StatusOr<Run> Core::get_run(Storage& storage, int64_t run_id, RunDetails* details,
                                  uint32_t changes_offset) const {
    std::optional<Run> run = storage.find_run(run_id);
    if (!run)
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    run_kind(run->spec.kind).load(storage, *run);
    run->spec.follow_up = storage.find_follow_up(run_id);
    if (std::optional<RunFaults> faults = storage.find_run_faults(run_id))
        run->spec.fault_bound = faults->bound;
    else
        run->spec.fault_bound = options_.fault_bound;
    if (details) *details = run_details(storage, *run, changes_offset);
    return *run;
}

RunDetails Core::run_details(Storage& storage, const Run& run, uint32_t changes_offset) const {
    RunDetails details;
    details.bench_mismatches = storage.bench_mismatches_of_run(run.id);
    if (run.spec.reference_nps > 0) details.clocks = storage.worker_clocks_of_run(run.id);
    details.lease_failures = storage.lease_failures_of_run(run.id);
    for (const RunLink& link : storage.run_links(run.id)) {
        if (link.child != run.id) continue;
        if (link.reason == RunLinkReason::Verifies) details.verifies_run_id = link.parent;
        if (link.reason == RunLinkReason::ChainStep) details.chain_run_id = link.parent;
    }
    details.workers = worker_fits(storage, run);
    details.classes = class_results(details.workers);
    details.class_findings = class_findings(details.classes);
    details.purges = storage.list_purges(run.id);
    details.faults = storage.fault_counts(run.id);
    details.output_warnings = storage.output_warnings(run.id);
    details.fault_state = storage.find_run_faults(run.id);
    details.changes =
        storage.latest_run_changes(run.id, changes_offset, kMaxShownChanges, &details.change_count);
    return details;
}

std::vector<Run> Core::list_runs(Storage& storage, const std::vector<RunState>& states,
                                 uint32_t limit) const {
    return storage.list_runs(states,
                             limit == 0 ? 100 : int(std::min<uint32_t>(limit, kMaxListedRuns)));
}

std::vector<Run> Core::find_runs(Storage& storage, RunQuery query, int64_t* total) const {
    query.limit = query.limit <= 0 ? 100 : std::min(query.limit, kMaxListedRuns);
    query.offset = std::max(query.offset, 0);
    std::vector<Run> runs = storage.find_runs(query, total);
    for (Run& run : runs)
        if (run.spec.description.size() > kMaxListedDescriptionBytes)
            run.spec.description =
                std::string(utf8_prefix(run.spec.description, kMaxListedDescriptionBytes - 3)) +
                "\u2026";
    return runs;
}

absl::StatusOr<GamesPage> Core::export_games(Storage& storage, int64_t run_id, uint64_t start_game,
                                             uint32_t max_games) const {
    if (!storage.find_run(run_id))
        return absl::NotFoundError("no run " + std::to_string(run_id) + " (see `sparring runs`)");
    const uint32_t limit =
        max_games == 0 ? kDefaultExportGames : std::min(max_games, kMaxExportGames);
    GamesPage page;
    page.next_start_game = start_game;
    const std::vector<StoredGame> games =
        storage.list_games(run_id, start_game, int(limit), kMaxExportBytes);
    for (const StoredGame& game : games) {
        if (page.games > 0 && page.pgn.size() + game.pgn.size() > kMaxExportBytes) break;
        page.pgn += game.pgn;
        if (!game.pgn.empty() && game.pgn.back() != '\n') page.pgn += '\n';
        page.pgn += '\n';
        page.next_start_game = game.game + 1;
        ++page.games;
    }
    page.done = games.size() < limit && page.games == games.size();
    return page;
}

}  // namespace sparring::coordinator
