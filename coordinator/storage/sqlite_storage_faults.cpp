// SqliteStorage, fault pauses: each run's fault bound and count against it (run_faults), and
// its faulty games tallied by version and fault.
#include "coordinator/domain/text.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

std::optional<RunFaults> SqliteStorage::find_run_faults(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT percent, min_games, off, faults, from_games, paused_ms, pause_version, "
        "pause_engine, pause_fault, pause_fault_games, pause_faulty_games, pause_games, "
        "pause_example_game, pause_reason FROM run_faults WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    RunFaults f;
    f.run_id = run_id;
    f.bound = {int(s.int64(0)), s.int64(1), s.int64(2) != 0};
    f.faults = s.int64(3);
    f.from_games = s.int64(4);
    if (!s.is_null(5)) {
        FaultPause p;
        p.paused_ms = s.int64(5);
        p.version = s.text(6);
        p.engine = s.text(7);
        p.fault = parse_game_ending(s.text(8)).value_or(GameEnding::Unknown);
        p.fault_games = s.int64(9);
        p.faulty_games = s.int64(10);
        p.games = s.int64(11);
        p.example_game = uint64_t(s.int64(12));
        p.reason = s.text(13);
        f.pause = std::move(p);
    }
    return f;
}

void SqliteStorage::put_run_faults(const RunFaults& f) {
    const FaultPause p = f.pause.value_or(FaultPause{});
    db_.prepare(
           "INSERT OR REPLACE INTO run_faults (run_id, percent, min_games, off, faults, "
           "from_games, paused_ms, pause_version, pause_engine, pause_fault, pause_fault_games, "
           "pause_faulty_games, pause_games, pause_example_game, pause_reason) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(f.run_id, int64_t(f.bound.percent), f.bound.min_games, f.bound.off, f.faults,
              f.from_games, f.pause ? std::optional<int64_t>(p.paused_ms) : std::nullopt, p.version,
              p.engine, std::string(f.pause ? game_ending_name(p.fault) : ""), p.fault_games,
              p.faulty_games, p.games, p.example_game, p.reason)
        .run();
}

std::vector<FaultTally> SqliteStorage::fault_tallies(int64_t run_id) {
    // The condition is the partial index games_faults's: only the faulty games are read.
    Statement& s = db_.prepare(
        "SELECT outcome = 'loss', ending, count(*), min(game) FROM games "
        "WHERE run_id = ? AND ending IN ('time_loss', 'crash', 'stall', 'illegal_move') "
        "GROUP BY outcome = 'loss', ending ORDER BY 3 DESC, 4");
    s.bind(run_id);
    std::vector<FaultTally> tallies;
    while (s.step())
        tallies.push_back({s.int64(0) != 0,
                           parse_game_ending(s.text(1)).value_or(GameEnding::Unknown), s.int64(2),
                           uint64_t(s.int64(3))});
    return tallies;
}

}  // namespace sparring::coordinator
