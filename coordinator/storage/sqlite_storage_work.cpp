// SqliteStorage, second half: workers, leases, reports, games and bench mismatches.
#include <algorithm>

#include "coordinator/domain/text.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"
#include "coordinator/storage/worker_controls_column.h"
#include "coordinator/storage/worker_identity_column.h"

namespace sparring::coordinator {

namespace {

constexpr std::string_view kWorkerSelect =
    "SELECT id, token_id, name, cores, memory_mb, concurrency, uci_engines, build, "
    "registered_ms, last_seen_ms, lease_id, games, accept_uploaded, controls, identity, "
    "cpu_class FROM workers ";

#define LEASE_SELECT                                                                     \
    "SELECT id, run_id, worker_id, first_pair, pairs, state, pairs_reported, reported, " \
    "last_sequence, created_ms, expires_ms, ended_ms, cores FROM batches "

// Reads a worker from the current row of a statement selecting kWorkerSelect's columns.
Worker read_worker_row(const Statement& s) {
    Worker w;
    w.id = s.int64(0);
    w.token_id = s.int64(1);
    w.name = s.text(2);
    w.cores = int(s.int64(3));
    w.memory_mb = s.int64(4);
    w.concurrency = int(s.int64(5));
    w.build = s.text(7);
    w.registered_ms = s.int64(8);
    w.last_seen_ms = s.int64(9);
    w.lease_id = s.int64(10);
    w.games = s.int64(11);
    w.accept_uploaded_engines = s.int64(12) != 0;
    w.controls = read_worker_controls(s.text(13));
    w.identity = read_worker_identity(s.text(14));
    w.cpu_class = s.text(15);
    return w;
}

}  // namespace

int64_t SqliteStorage::insert_worker(const Worker& w) {
    db_.prepare(
           "INSERT INTO workers (token_id, name, cores, memory_mb, concurrency, uci_engines, "
           "build, registered_ms, last_seen_ms, accept_uploaded, controls, identity, cpu_class) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(w.token_id, w.name, w.cores, w.memory_mb, w.concurrency, json_column(w.uci_engines),
              w.build, w.registered_ms, w.last_seen_ms, w.accept_uploaded_engines ? 1 : 0,
              worker_controls_column(w.controls), worker_identity_column(w.identity), w.cpu_class)
        .run();
    return db_.last_insert_rowid();
}

std::optional<Worker> SqliteStorage::find_worker(int64_t id) {
    static const std::string sql = std::string(kWorkerSelect) + "WHERE id = ?";
    Statement& s = db_.prepare(sql);
    s.bind(id);
    if (!s.step()) return std::nullopt;
    Worker w = read_worker_row(s);
    w.uci_engines = read_json_column<std::vector<std::string>>(s.text(6), "workers.uci_engines");
    return w;
}

void SqliteStorage::touch_worker(int64_t id, int64_t now_ms) {
    db_.prepare("UPDATE workers SET last_seen_ms = ? WHERE id = ?").bind(now_ms, id).run();
}

void SqliteStorage::set_worker_lease(int64_t id, int64_t lease_id, int64_t held) {
    if (lease_id != 0)
        db_.prepare("UPDATE workers SET lease_id = ? WHERE id = ?").bind(lease_id, id).run();
    else
        db_.prepare("UPDATE workers SET lease_id = 0 WHERE id = ? AND lease_id = ?")
            .bind(id, held)
            .run();
}

void SqliteStorage::add_worker_games(int64_t id, int64_t games) {
    db_.prepare("UPDATE workers SET games = games + ? WHERE id = ?").bind(games, id).run();
}

std::vector<WorkerSummary> SqliteStorage::list_workers(int64_t seen_since_ms) {
    Statement& s = db_.prepare(
        "SELECT w.id, w.token_id, w.name, w.cores, w.memory_mb, w.concurrency, w.uci_engines, "
        "w.build, w.registered_ms, w.last_seen_ms, w.lease_id, w.games, w.accept_uploaded, "
        "w.controls, w.identity, w.cpu_class, "
        "(SELECT run_id FROM batches WHERE id = w.lease_id AND state = 'leased') "
        "FROM workers w WHERE w.last_seen_ms >= ? ORDER BY w.id");
    s.bind(seen_since_ms);
    std::vector<WorkerSummary> workers;
    std::vector<std::string> engines;
    while (s.step()) {
        WorkerSummary summary;
        summary.worker = read_worker_row(s);
        engines.push_back(s.text(6));
        summary.run_id = s.int64(16);
        workers.push_back(std::move(summary));
    }
    for (size_t i = 0; i < workers.size(); ++i)
        workers[i].worker.uci_engines =
            read_json_column<std::vector<std::string>>(engines[i], "workers.uci_engines");
    return workers;
}

void SqliteStorage::upsert_worker_speed(const WorkerSpeed& w) {
    db_.prepare(
           "INSERT INTO worker_speeds (worker_id, version_id, nps, games_at_once, measured_ms) "
           "VALUES (?, ?, ?, ?, ?) ON CONFLICT (worker_id, version_id) DO UPDATE SET "
           "nps = excluded.nps, games_at_once = excluded.games_at_once, "
           "measured_ms = excluded.measured_ms")
        .bind(w.worker_id, w.version_id, w.nps, w.games_at_once, w.measured_ms)
        .run();
}

namespace {

std::vector<WorkerSpeed> read_speeds(Statement& s) {
    std::vector<WorkerSpeed> speeds;
    while (s.step()) {
        WorkerSpeed& w = speeds.emplace_back();
        w.worker_id = s.int64(0);
        w.version_id = s.int64(1);
        w.nps = uint64_t(s.int64(2));
        w.games_at_once = int(s.int64(3));
        w.measured_ms = s.int64(4);
        w.version = s.text(5);
    }
    return speeds;
}

constexpr std::string_view kSpeedColumns =
    "SELECT s.worker_id, s.version_id, s.nps, s.games_at_once, s.measured_ms, v.name "
    "FROM worker_speeds s JOIN versions v ON v.id = s.version_id ";

}  // namespace

std::optional<WorkerSpeed> SqliteStorage::find_worker_speed(int64_t worker_id, int64_t version_id) {
    Statement& s =
        db_.prepare(std::string(kSpeedColumns) + "WHERE s.worker_id = ? AND s.version_id = ?");
    s.bind(worker_id, version_id);
    std::vector<WorkerSpeed> speeds = read_speeds(s);
    if (speeds.empty()) return std::nullopt;
    return speeds.front();
}

std::vector<WorkerSpeed> SqliteStorage::worker_speeds(int64_t worker_id) {
    Statement& s = db_.prepare(std::string(kSpeedColumns) +
                               "WHERE s.worker_id = ? ORDER BY s.measured_ms DESC, s.version_id");
    s.bind(worker_id);
    return read_speeds(s);
}

std::vector<WorkerClock> SqliteStorage::worker_clocks_of_run(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT r.worker_id, coalesce(w.name, ''), min(r.clock_factor), max(r.clock_factor), "
        "count(*), sum(r.pairs), "
        "(SELECT clock_factor FROM results l WHERE l.run_id = r.run_id AND "
        " l.worker_id = r.worker_id AND l.purge_id = 0 AND l.nps > 0 ORDER BY l.id DESC LIMIT 1), "
        "(SELECT nps FROM results l WHERE l.run_id = r.run_id AND "
        " l.worker_id = r.worker_id AND l.purge_id = 0 AND l.nps > 0 ORDER BY l.id DESC LIMIT 1) "
        "FROM results r LEFT JOIN workers w ON w.id = r.worker_id "
        "WHERE r.run_id = ? AND r.purge_id = 0 AND r.nps > 0 "
        "GROUP BY r.worker_id ORDER BY r.worker_id");
    s.bind(run_id);
    std::vector<WorkerClock> clocks;
    while (s.step()) {
        WorkerClock& c = clocks.emplace_back();
        c.worker_id = s.int64(0);
        c.worker_name = s.text(1);
        c.min_factor = s.real(2);
        c.max_factor = s.real(3);
        c.reports = s.int64(4);
        c.pairs = s.int64(5);
        c.last_factor = s.real(6);
        c.last_nps = uint64_t(s.int64(7));
    }
    return clocks;
}

int64_t SqliteStorage::insert_lease(const Lease& b) {
    db_.prepare(
           "INSERT INTO batches (run_id, worker_id, first_pair, pairs, cores, state, "
           "pairs_reported, reported, last_sequence, created_ms, expires_ms, ended_ms, token_id, "
           "cpu_class) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
           "coalesce((SELECT token_id FROM workers WHERE id = ?), 0), "
           "coalesce((SELECT cpu_class FROM workers WHERE id = ?), ''))")
        .bind(b.run_id, b.worker_id, b.first_pair, b.pairs, b.cores, lease_state_name(b.state),
              b.pairs_reported,
              Blob{std::string_view(reinterpret_cast<const char*>(b.reported.data()),
                                    b.reported.size())},
              b.last_sequence, b.created_ms, b.expires_ms, b.ended_ms, b.worker_id, b.worker_id)
        .run();
    return db_.last_insert_rowid();
}

std::vector<Lease> SqliteStorage::read_leases(Statement& s) {
    std::vector<Lease> leases;
    while (s.step()) {
        Lease b;
        b.id = s.int64(0);
        b.run_id = s.int64(1);
        b.worker_id = s.int64(2);
        b.first_pair = uint64_t(s.int64(3));
        b.pairs = uint32_t(s.int64(4));
        b.state = *parse_lease_state(s.text(5));
        b.pairs_reported = uint32_t(s.int64(6));
        const std::string bitmap = s.blob(7);
        b.reported.assign(bitmap.begin(), bitmap.end());
        b.reported.resize((b.pairs + 7) / 8);
        b.last_sequence = uint32_t(s.int64(8));
        b.created_ms = s.int64(9);
        b.expires_ms = s.int64(10);
        b.ended_ms = s.int64(11);
        b.cores = int(s.int64(12));
        leases.push_back(std::move(b));
    }
    return leases;
}

std::optional<Lease> SqliteStorage::find_lease(int64_t id) {
    Statement& s = db_.prepare(LEASE_SELECT "WHERE id = ?");
    s.bind(id);
    auto leases = read_leases(s);
    if (leases.empty()) return std::nullopt;
    return std::move(leases.front());
}

void SqliteStorage::update_lease(const Lease& b) {
    db_.prepare(
           "UPDATE batches SET state = ?, pairs_reported = ?, reported = ?, last_sequence = ?, "
           "expires_ms = ?, ended_ms = ? WHERE id = ?")
        .bind(lease_state_name(b.state), b.pairs_reported,
              Blob{std::string_view(reinterpret_cast<const char*>(b.reported.data()),
                                    b.reported.size())},
              b.last_sequence, b.expires_ms, b.ended_ms, b.id)
        .run();
}

std::vector<Lease> SqliteStorage::leases_expiring_before(int64_t time_ms) {
    Statement& s = db_.prepare(LEASE_SELECT "WHERE state = 'leased' AND expires_ms < ?");
    s.bind(time_ms);
    return read_leases(s);
}

std::vector<Lease> SqliteStorage::leases_of_run(int64_t run_id) {
    Statement& s = db_.prepare(LEASE_SELECT "WHERE run_id = ? AND state = 'leased'");
    s.bind(run_id);
    return read_leases(s);
}

void SqliteStorage::extend_leases(int64_t time_ms) {
    db_.prepare("UPDATE batches SET expires_ms = ? WHERE state = 'leased' AND expires_ms < ?")
        .bind(time_ms, time_ms)
        .run();
}

std::optional<std::string> SqliteStorage::find_report_digest(int64_t lease_id, uint32_t sequence) {
    Statement& s = db_.prepare("SELECT digest FROM results WHERE batch_id = ? AND sequence = ?");
    s.bind(lease_id, sequence);
    if (!s.step()) return std::nullopt;
    return s.text(0);
}

void SqliteStorage::insert_report(const ReportRecord& r) {
    const auto& p = r.counts.penta.counts;
    db_.prepare(
           "INSERT INTO results (batch_id, sequence, run_id, worker_id, pairs, wins, draws, "
           "losses, ll, ld, dd_wl, wd, ww, digest, received_ms, clock_factor, nps) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(r.lease_id, r.sequence, r.run_id, r.worker_id, r.counts.pairs, r.counts.wins,
              r.counts.draws, r.counts.losses, p[0], p[1], p[2], p[3], p[4], r.digest,
              r.received_ms, r.clock_factor, r.nps)
        .run();
}

std::vector<ReportRecord> SqliteStorage::list_reports(int64_t run_id, int64_t after_id) {
    Statement& s = db_.prepare(
        "SELECT batch_id, sequence, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, "
        "ww, received_ms, id FROM results WHERE run_id = ? AND purge_id = 0 AND id > ? "
        "ORDER BY id");
    s.bind(run_id, after_id);
    std::vector<ReportRecord> reports;
    while (s.step()) {
        ReportRecord& r = reports.emplace_back();
        r.lease_id = s.int64(0);
        r.sequence = uint32_t(s.int64(1));
        r.run_id = run_id;
        r.worker_id = s.int64(2);
        r.counts.pairs = s.int64(3);
        r.counts.wins = s.int64(4);
        r.counts.draws = s.int64(5);
        r.counts.losses = s.int64(6);
        for (int i = 0; i < 5; ++i) r.counts.penta.counts[size_t(i)] = s.int64(7 + i);
        r.received_ms = s.int64(12);
        r.id = s.int64(13);
    }
    return reports;
}

std::vector<ReportRecord> SqliteStorage::recent_reports(int64_t run_id, int limit) {
    // results_by_run holds (run_id, id): the latest reports are read off its end.
    Statement& s = db_.prepare(
        "SELECT id, worker_id, pairs, received_ms FROM results WHERE run_id = ? AND purge_id = 0 "
        "ORDER BY id DESC LIMIT ?");
    s.bind(run_id, int64_t(limit));
    std::vector<ReportRecord> reports;
    while (s.step()) {
        ReportRecord& r = reports.emplace_back();
        r.id = s.int64(0);
        r.run_id = run_id;
        r.worker_id = s.int64(1);
        r.counts.pairs = s.int64(2);
        r.received_ms = s.int64(3);
    }
    return reports;
}

void SqliteStorage::insert_game(const StoredGame& g) {
    const std::string pgn = g.stored_pgn.empty() ? encode_pgn(g.pgn) : g.stored_pgn;
    db_.prepare(
           "INSERT INTO games (run_id, game, batch_id, worker_id, outcome, test_white, pgn, "
           "ending) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(g.run_id, g.game, g.lease_id, g.worker_id, outcome_name(g.outcome), g.test_white,
              Blob{pgn}, std::string(game_ending_name(g.ending)))
        .run();
}

std::vector<StoredGame> SqliteStorage::list_games(int64_t run_id, uint64_t start_game,
                                                  int max_games, size_t max_bytes) {
    Statement& s = db_.prepare(
        "SELECT game, batch_id, worker_id, outcome, test_white, pgn FROM games "
        "WHERE run_id = ? AND game >= ? ORDER BY game LIMIT ?");
    s.bind(run_id, start_game, max_games);
    std::vector<StoredGame> games;
    size_t bytes = 0;
    while (s.step()) {
        StoredGame g;
        g.run_id = run_id;
        g.game = uint64_t(s.int64(0));
        g.lease_id = s.int64(1);
        g.worker_id = s.int64(2);
        g.outcome = parse_outcome(s.text(3)).value_or(Outcome::Draw);
        g.test_white = s.int64(4) != 0;
        auto pgn = decode_pgn(s.blob(5));
        if (!pgn) throw StorageError("damaged PGN of game " + std::to_string(g.game));
        g.pgn = std::move(*pgn);
        bytes += g.pgn.size();
        games.push_back(std::move(g));
        if (bytes > max_bytes) break;
    }
    s.reset();
    return games;
}

void SqliteStorage::insert_bench_mismatch(const BenchMismatch& m) {
    db_.prepare(
           "INSERT INTO bench_mismatches (worker_id, version_id, expected, computed, message, "
           "created_ms) VALUES (?, ?, ?, ?, ?, ?)")
        .bind(m.worker_id, m.version_id, m.expected, m.computed, m.message, m.created_ms)
        .run();
}

std::vector<BenchMismatch> SqliteStorage::bench_mismatches_of_run(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT m.worker_id, m.version_id, v.name, m.expected, m.computed, m.message, "
        "m.created_ms FROM bench_mismatches m JOIN versions v ON v.id = m.version_id "
        "JOIN runs r ON r.id = ? AND m.version_id IN (r.test_version_id, r.base_version_id) "
        "ORDER BY m.id");
    s.bind(run_id);
    std::vector<BenchMismatch> mismatches;
    while (s.step()) {
        BenchMismatch m;
        m.worker_id = s.int64(0);
        m.version_id = s.int64(1);
        m.version = s.text(2);
        m.expected = uint64_t(s.int64(3));
        m.computed = uint64_t(s.int64(4));
        m.message = s.text(5);
        m.created_ms = s.int64(6);
        mismatches.push_back(std::move(m));
    }
    return mismatches;
}

std::vector<int64_t> SqliteStorage::refused_versions(int64_t worker_id) {
    Statement& s =
        db_.prepare("SELECT DISTINCT version_id FROM bench_mismatches WHERE worker_id = ?");
    s.bind(worker_id);
    std::vector<int64_t> versions;
    while (s.step()) versions.push_back(s.int64(0));
    return versions;
}

void SqliteStorage::insert_lease_failure(const LeaseFailure& f) {
    db_.prepare(
           "INSERT OR IGNORE INTO lease_failures (batch_id, run_id, worker_id, message, "
           "created_ms) VALUES (?, ?, ?, ?, ?)")
        .bind(f.lease_id, f.run_id, f.worker_id, f.message, f.created_ms)
        .run();
}

std::vector<LeaseFailure> SqliteStorage::lease_failures_of_run(int64_t run_id) {
    // SQLite takes the bare columns of a max() aggregate from the row holding the maximum.
    Statement& s = db_.prepare(
        "SELECT batch_id, worker_id, message, max(created_ms), count(*) FROM lease_failures "
        "WHERE run_id = ? GROUP BY worker_id ORDER BY worker_id");
    s.bind(run_id);
    std::vector<LeaseFailure> failures;
    while (s.step()) {
        LeaseFailure f;
        f.lease_id = s.int64(0);
        f.run_id = run_id;
        f.worker_id = s.int64(1);
        f.message = s.text(2);
        f.created_ms = s.int64(3);
        f.count = int(s.int64(4));
        failures.push_back(std::move(f));
    }
    return failures;
}

std::vector<FaultCount> SqliteStorage::fault_counts(int64_t run_id) {
    // The condition is the partial index games_faults's: only the faulty games are read.
    Statement& s = db_.prepare(
        "SELECT g.worker_id, w.name, g.outcome = 'loss', g.ending, count(*) FROM games g "
        "JOIN workers w ON w.id = g.worker_id "
        "WHERE g.run_id = ? AND g.ending IN ('time_loss', 'crash', 'stall', 'illegal_move') "
        "GROUP BY g.worker_id, g.outcome = 'loss', g.ending ORDER BY g.worker_id, 3 DESC, 4");
    s.bind(run_id);
    std::vector<FaultCount> faults;
    while (s.step()) {
        FaultCount f;
        f.worker_id = s.int64(0);
        f.worker_name = s.text(1);
        f.test_version = s.int64(2) != 0;
        f.fault = parse_game_ending(s.text(3)).value_or(GameEnding::Unknown);
        f.games = s.int64(4);
        faults.push_back(std::move(f));
    }
    return faults;
}

std::vector<int64_t> SqliteStorage::failed_runs(int64_t worker_id, int min_failures) {
    Statement& s = db_.prepare(
        "SELECT run_id FROM lease_failures WHERE worker_id = ? GROUP BY run_id "
        "HAVING count(*) >= ?");
    s.bind(worker_id, int64_t(min_failures));
    std::vector<int64_t> runs;
    while (s.step()) runs.push_back(s.int64(0));
    return runs;
}

int64_t SqliteStorage::count_leases_of_token(int64_t token_id, int64_t at_most) {
    Statement& s = db_.prepare("SELECT leased FROM token_leases WHERE token_id = ?");
    s.bind(token_id);
    return std::min(s.step() ? s.int64(0) : 0, at_most);
}

std::optional<int64_t> SqliteStorage::last_report_ms(int64_t lease_id) {
    Statement& s = db_.prepare("SELECT max(received_ms) FROM results WHERE batch_id = ?");
    s.bind(lease_id);
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.int64(0);
}

}  // namespace sparring::coordinator
