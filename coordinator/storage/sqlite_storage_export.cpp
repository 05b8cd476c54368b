// Bulk export of games (domain/game_export.h): the runs of a selection from the small runs
// table, then each run's games by (run_id, game), the games table's unique index, a chunk at a
// time after the last game read (never OFFSET). Every PGN is read through decode_pgn.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/domain/game_export.h"
#include "coordinator/domain/text.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

template <typename T>
bool any_of_or_empty(const std::vector<T>& values, const T& value) {
    return values.empty() || std::find(values.begin(), values.end(), value) != values.end();
}

// A run's games after a game, of the results bit set ?3 (ExportFilter::results), in order.
constexpr const char* kGames =
    "SELECT g.game, g.pgn FROM games g WHERE g.run_id = ?1 AND g.game > ?2 "
    "AND (?3 >> (CASE g.outcome WHEN 'win' THEN 0 WHEN 'draw' THEN 2 ELSE 4 END + "
    "(g.test_white != 0))) & 1 "
    "ORDER BY g.game LIMIT ?4";
// The same, of the games whose batch was leased in [?5, ?6): its batch found by primary key.
constexpr const char* kGamesLeased =
    "SELECT g.game, g.pgn FROM games g JOIN batches b ON b.id = g.batch_id "
    "WHERE g.run_id = ?1 AND g.game > ?2 "
    "AND (?3 >> (CASE g.outcome WHEN 'win' THEN 0 WHEN 'draw' THEN 2 ELSE 4 END + "
    "(g.test_white != 0))) & 1 "
    "AND b.created_ms >= ?5 AND b.created_ms < ?6 "
    "ORDER BY g.game LIMIT ?4";

}  // namespace

std::vector<int64_t> SqliteStorage::export_runs(const ExportFilter& filter) {
    Statement& s = db_.prepare(
        "SELECT id, kind, time_control, test_version_id, base_version_id, created_ms, "
        "finished_ms FROM runs ORDER BY id");
    s.bind();
    std::vector<int64_t> runs;
    while (s.step()) {
        const int64_t id = s.int64(0);
        const std::optional<RunKind> kind = parse_run_kind(s.text(1));
        const int64_t created = s.int64(5), finished = s.int64(6);
        if (!any_of_or_empty(filter.run_ids, id)) continue;
        if (!filter.kinds.empty() && (!kind || !any_of_or_empty(filter.kinds, *kind))) continue;
        if (!any_of_or_empty(filter.time_controls, s.text(2))) continue;
        if (!filter.version_ids.empty() && !any_of_or_empty(filter.version_ids, s.int64(3)) &&
            !any_of_or_empty(filter.version_ids, s.int64(4)))
            continue;
        // A run's games are leased after it was created and before it finished.
        if (filter.until_ms > 0 && created >= filter.until_ms) continue;
        if (filter.since_ms > 0 && finished > 0 && finished < filter.since_ms) continue;
        runs.push_back(id);
    }
    s.reset();
    return runs;
}

std::vector<ExportedGame> SqliteStorage::export_games(int64_t run_id, int64_t after_game,
                                                      const ExportFilter& filter, int max_games,
                                                      size_t max_bytes) {
    const bool leased = filter.since_ms > 0 || filter.until_ms > 0;
    Statement& s = db_.prepare(leased ? kGamesLeased : kGames);
    if (leased)
        s.bind(run_id, after_game, int64_t(filter.results), max_games, filter.since_ms,
               filter.until_ms > 0 ? filter.until_ms : std::numeric_limits<int64_t>::max());
    else
        s.bind(run_id, after_game, int64_t(filter.results), max_games);
    std::vector<ExportedGame> games;
    size_t bytes = 0;
    while (s.step()) {
        ExportedGame& g = games.emplace_back();
        g.game = uint64_t(s.int64(0));
        std::optional<std::string> pgn = decode_pgn(s.blob(1));
        if (!pgn) {
            s.reset();
            throw StorageError("damaged PGN of game " + std::to_string(g.game) + " of run " +
                               std::to_string(run_id));
        }
        g.pgn = std::move(*pgn);
        bytes += g.pgn.size();
        if (bytes > max_bytes) break;
    }
    s.reset();
    return games;
}

}  // namespace sparring::coordinator
