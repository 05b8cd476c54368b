// SqliteStorage: each worker's counted pairs in a run, purges of a worker's games, and the
// keys that let an interrupted import of positions continue.
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

// Reads nine count columns (results, purges and run_workers order) from `first` on.
Counts read_counts(const Statement& s, int first) {
    Counts c;
    c.pairs = s.int64(first);
    c.wins = s.int64(first + 1);
    c.draws = s.int64(first + 2);
    c.losses = s.int64(first + 3);
    for (int i = 0; i < 5; ++i) c.penta.counts[size_t(i)] = s.int64(first + 4 + i);
    return c;
}

}  // namespace

std::vector<WorkerFit> SqliteStorage::worker_counts(int64_t run_id) {
    // run_workers holds the sums of the counted reports (migration 9's triggers); a worker
    // whose reports were all purged has a row of zeros.
    Statement& s = db_.prepare(
        "SELECT r.worker_id, w.name, r.pairs, r.wins, r.draws, r.losses, r.ll, r.ld, r.dd_wl, "
        "r.wd, r.ww, w.cpu_class FROM run_workers r JOIN workers w ON w.id = r.worker_id "
        "WHERE r.run_id = ? AND r.pairs > 0 ORDER BY r.worker_id");
    s.bind(run_id);
    std::vector<WorkerFit> workers;
    while (s.step()) {
        WorkerFit& w = workers.emplace_back();
        w.worker_id = s.int64(0);
        w.name = s.text(1);
        w.counts = read_counts(s, 2);
        w.cpu_class = s.text(11);
    }
    return workers;
}

Counts SqliteStorage::worker_counts(int64_t run_id, int64_t worker_id) {
    Statement& s = db_.prepare(
        "SELECT pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww FROM run_workers "
        "WHERE worker_id = ? AND run_id = ?");
    s.bind(worker_id, run_id);
    Counts counts;
    if (s.step()) counts = read_counts(s, 0);
    s.reset();
    return counts;
}

std::optional<int64_t> SqliteStorage::last_reported_run(int64_t worker_id) {
    Statement& s = db_.prepare(
        "SELECT run_id FROM results WHERE worker_id = ? AND purge_id = 0 ORDER BY id DESC "
        "LIMIT 1");
    s.bind(worker_id);
    std::optional<int64_t> run;
    if (s.step()) run = s.int64(0);
    s.reset();
    return run;
}

int64_t SqliteStorage::insert_purge(const Purge& p) {
    const auto& penta = p.counts.penta.counts;
    db_.prepare(
           "INSERT INTO purges (run_id, worker_id, token_id, peer, purged_ms, pairs, wins, "
           "draws, losses, ll, ld, dd_wl, wd, ww) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
           "?)")
        .bind(p.run_id, p.worker_id, p.token_id, p.peer, p.purged_ms, p.counts.pairs, p.counts.wins,
              p.counts.draws, p.counts.losses, penta[0], penta[1], penta[2], penta[3], penta[4])
        .run();
    return db_.last_insert_rowid();
}

std::vector<Purge> SqliteStorage::list_purges(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT p.id, p.worker_id, w.name, p.token_id, t.name, p.peer, p.purged_ms, p.pairs, "
        "p.wins, p.draws, p.losses, p.ll, p.ld, p.dd_wl, p.wd, p.ww FROM purges p "
        "JOIN workers w ON w.id = p.worker_id JOIN tokens t ON t.id = p.token_id "
        "WHERE p.run_id = ? ORDER BY p.id");
    s.bind(run_id);
    std::vector<Purge> purges;
    while (s.step()) {
        Purge& p = purges.emplace_back();
        p.id = s.int64(0);
        p.run_id = run_id;
        p.worker_id = s.int64(1);
        p.worker_name = s.text(2);
        p.token_id = s.int64(3);
        p.token_name = s.text(4);
        p.peer = s.text(5);
        p.purged_ms = s.int64(6);
        p.counts = read_counts(s, 7);
    }
    return purges;
}

std::vector<int64_t> SqliteStorage::purged_runs(int64_t worker_id) {
    Statement& s = db_.prepare("SELECT run_id FROM purges WHERE worker_id = ?");
    s.bind(worker_id);
    std::vector<int64_t> runs;
    while (s.step()) runs.push_back(s.int64(0));
    return runs;
}

std::vector<uint64_t> SqliteStorage::purge_worker_games(int64_t run_id, int64_t worker_id,
                                                        int64_t purge_id) {
    db_.prepare(
           "UPDATE results SET purge_id = ? WHERE run_id = ? AND worker_id = ? AND "
           "purge_id = 0")
        .bind(purge_id, run_id, worker_id)
        .run();
    Statement& s = db_.prepare(
        "SELECT DISTINCT game / 2 FROM games WHERE run_id = ? AND worker_id = ? ORDER BY 1");
    s.bind(run_id, worker_id);
    std::vector<uint64_t> pairs;
    while (s.step()) pairs.push_back(uint64_t(s.int64(0)));
    db_.prepare(
           "INSERT INTO purged_games (purge_id, run_id, game, batch_id, worker_id, outcome, "
           "test_white, pgn) SELECT ?, run_id, game, batch_id, worker_id, outcome, test_white, "
           "pgn FROM games WHERE run_id = ? AND worker_id = ?")
        .bind(purge_id, run_id, worker_id)
        .run();
    db_.prepare("DELETE FROM games WHERE run_id = ? AND worker_id = ?")
        .bind(run_id, worker_id)
        .run();
    return pairs;
}

void SqliteStorage::insert_import_key(int64_t run_id, std::string_view key) {
    db_.prepare("INSERT INTO position_imports (run_id, import_key) VALUES (?, ?)")
        .bind(run_id, key)
        .run();
}

std::optional<int64_t> SqliteStorage::find_active_import(std::string_view key) {
    Statement& s = db_.prepare(
        "SELECT i.run_id FROM position_imports i JOIN runs r ON r.id = i.run_id "
        "WHERE i.import_key = ? AND r.state = 'active' ORDER BY i.run_id DESC LIMIT 1");
    s.bind(key);
    std::optional<int64_t> run;
    if (s.step()) run = s.int64(0);
    s.reset();
    return run;
}

uint64_t SqliteStorage::count_position_games(int64_t run_id) {
    Statement& s = db_.prepare("SELECT count(*) FROM training_positions WHERE run_id = ?");
    s.bind(run_id);
    const uint64_t games = s.step() ? uint64_t(s.int64(0)) : 0;
    s.reset();
    return games;
}

}  // namespace sparring::coordinator
