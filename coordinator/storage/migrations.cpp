#include "coordinator/storage/migrations.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/printable.h"
#include "coordinator/storage/books.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/migration_sql.h"
#include "coordinator/storage/pgn_codec.h"

namespace sparring::coordinator {

namespace {

using namespace migration_sql;

// Returns a name quoted as an SQL identifier.
std::string identifier(std::string_view name) {
    std::string quoted = "\"";
    for (const char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

// Makes the text of one column valid UTF-8 in every row (see repair_text).
void repair_column(Database& db, const std::string& table, const std::string& column) {
    const std::string t = identifier(table);
    const std::string c = identifier(column);
    std::vector<std::pair<int64_t, std::string>> repaired;
    Statement& read = db.prepare("SELECT rowid, " + c + " FROM " + t + " WHERE typeof(" + c +
                                 ") = 'text' ORDER BY rowid");
    read.bind();
    while (read.step()) {
        const std::string text = read.text(1);
        if (!is_valid_utf8(text)) repaired.emplace_back(read.int64(0), valid_utf8(text));
    }
    read.reset();
    Statement& write = db.prepare("UPDATE " + t + " SET " + c + " = ? WHERE rowid = ?");
    for (const auto& [rowid, text] : repaired) {
        try {
            write.bind(text, rowid).run();
        } catch (const StorageError&) {
            // A unique column where an older row has the repaired text: the id keeps this apart.
            write.bind(text + " #" + std::to_string(rowid), rowid).run();
        }
    }
}

// Migration 10 (issue 32): text stored before every cut kept whole characters and every entry
// point repaired what it read (a failure message cut inside an "é") becomes valid UTF-8, each
// ill-formed part U+FFFD: gRPC and JSON refused to send it, and one such row made every listing
// fail. Every TEXT column of every table is read once; only broken rows are written.
void repair_text(Database& db) {
    std::vector<std::string> tables;
    Statement& list = db.prepare(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND wr = 0 "
        "AND name NOT LIKE 'sqlite%' ORDER BY name");
    list.bind();
    while (list.step()) tables.push_back(list.text(0));
    list.reset();
    for (const std::string& table : tables) {
        std::vector<std::string> columns;
        Statement& info =
            db.prepare("SELECT name FROM pragma_table_info(?) WHERE upper(type) LIKE '%TEXT%'");
        info.bind(table);
        while (info.step()) columns.push_back(info.text(0));
        info.reset();
        for (const std::string& column : columns) repair_column(db, table, column);
    }
}

// Returns whether a table has a column.
bool has_column(Database& db, std::string_view table, std::string_view column) {
    Statement& has = db.prepare("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?");
    has.bind(std::string(table), std::string(column));
    const bool present = has.step() && has.int64(0) > 0;
    has.reset();
    return present;
}

// Adds a column unless the table has it already: a database migrated again from an older
// user_version keeps the column it has.
void add_column(Database& db, std::string_view table, std::string_view column,
                std::string_view type) {
    if (!has_column(db, table, column))
        db.exec("ALTER TABLE " + std::string(table) + " ADD COLUMN " + std::string(column) + " " +
                std::string(type));
}

// Migration 11 (issue 30): the adjudication rules in force of each run, as the rule text the
// worker parses ('' for a rule that is off). Runs stored before keep none, as they were played.
void add_adjudication_columns(Database& db) {
    add_column(db, "runs", "draw_rule", "TEXT NOT NULL DEFAULT ''");    // "movenumber=34 ..."
    add_column(db, "runs", "resign_rule", "TEXT NOT NULL DEFAULT ''");  // "movecount=3 ..."
    add_column(db, "runs", "max_plies", "INTEGER NOT NULL DEFAULT 0");  // 0: no limit
}

// Migration 12 (issue 30): how each game ended, as its worker reported it ('' before, or from
// an older worker): 'rules', 'adjudication', or a fault of the engine that lost — 'time_loss',
// 'crash', 'stall', 'illegal_move'. A partial index holds the faults alone, so that a run's
// counts per worker read only its faulty games, however many games it has.
void add_game_endings(Database& db) {
    add_column(db, "games", "ending", "TEXT NOT NULL DEFAULT ''");
    db.exec(
        "CREATE INDEX IF NOT EXISTS games_faults ON games (run_id) "
        "WHERE ending IN ('time_loss', 'crash', 'stall', 'illegal_move')");
}

// Migration 13 (issue 30): the threads of each UCI engine in a run's games (1 for the runs
// stored before, as they were played).
void add_run_threads(Database& db) {
    add_column(db, "runs", "threads", "INTEGER NOT NULL DEFAULT 1");
}

// Migration 14 (issue 31): the run each run was submitted like (`submit --like`), 0 for none.
void add_run_origin(Database& db) {
    add_column(db, "runs", "origin_run_id", "INTEGER NOT NULL DEFAULT 0");
}

// Migration 15 (issue 31): admin tokens, the owner of each run and version (the name of the token
// that added it; '' for those stored before, which only an admin may stop or change), and each
// change made to a run after its submission, with who made it and when.
void add_owners_and_changes(Database& db) {
    add_column(db, "runs", "owner", "TEXT NOT NULL DEFAULT ''");
    add_column(db, "versions", "owner", "TEXT NOT NULL DEFAULT ''");
    // An admin token is a user token with admin set: the role column's CHECK stays as it is.
    add_column(db, "tokens", "admin", "INTEGER NOT NULL DEFAULT 0");
    db.exec(
        "CREATE TABLE IF NOT EXISTS run_changes ("
        "  id         INTEGER PRIMARY KEY,"
        "  run_id     INTEGER NOT NULL REFERENCES runs(id),"
        "  changed_ms INTEGER NOT NULL,"
        "  user       TEXT NOT NULL,"  // the token's name, as runs.owner
        "  field      TEXT NOT NULL,"  // 'priority', 'throughput', 'games', 'description', 'stop'
        "  old_value  TEXT NOT NULL,"
        "  new_value  TEXT NOT NULL);"
        "CREATE INDEX IF NOT EXISTS run_changes_run ON run_changes(run_id, id);"
        "CREATE INDEX IF NOT EXISTS runs_owner ON runs(owner, id);");
}

// Migration 16 (issue 31): the follow-up a regression run starts when it ends, and the run it
// started (set in the transaction that ends the first run: started exactly once). The run it
// started, and the index on it this migration made, moved to run_links in migration 24, so a
// database migrated again from before 16 makes no index on a column it no longer has.
constexpr std::string_view kSchema16 = R"sql(
CREATE TABLE IF NOT EXISTS follow_ups (
  run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
  on_result     TEXT NOT NULL,              -- 'H1', 'H0' or 'any'
  time_control  TEXT NOT NULL,
  elo0          REAL,                       -- NULL: the first run's SPRT
  elo1          REAL,
  alpha         REAL,
  beta          REAL,
  model         TEXT,
  games         INTEGER NOT NULL,           -- 0: the first run's
  follow_run_id INTEGER NOT NULL DEFAULT 0  -- the run it started; 0: none yet
);
)sql";

// Migration 17 (issue 31): the outbox of notifications (each run's end, to the operator's URL
// and its owner's), filled by the transaction that ends the run and emptied by the notifier,
// and each user's notification URL.
constexpr std::string_view kSchema17 = R"sql(
CREATE TABLE IF NOT EXISTS notifications (
  id           INTEGER PRIMARY KEY,        -- sent as the body's "id": for de-duplication
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  url          TEXT NOT NULL,
  body         TEXT NOT NULL,              -- a JSON object, without its id
  attempts     INTEGER NOT NULL,
  next_ms      INTEGER NOT NULL,           -- not sent before
  delivered_ms INTEGER NOT NULL,           -- 0: not yet
  last_error   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS notifications_due ON notifications(next_ms) WHERE delivered_ms = 0;
CREATE TABLE IF NOT EXISTS notify_urls (
  user TEXT PRIMARY KEY,                   -- a token's name
  url  TEXT NOT NULL
);
)sql";

// Migration 18 (issue 30): scaled clocks. The speed a run's clock (and a version's engine) is
// defined for, 0 for none; the factor each report's games were played with and the worker's
// speed it came from (0 for raw clocks); and each worker's last speed with each version's engine.
void add_scaled_clocks(Database& db) {
    add_column(db, "runs", "reference_nps", "INTEGER NOT NULL DEFAULT 0");
    add_column(db, "versions", "reference_nps", "INTEGER NOT NULL DEFAULT 0");
    add_column(db, "results", "clock_factor", "REAL NOT NULL DEFAULT 0");
    add_column(db, "results", "nps", "INTEGER NOT NULL DEFAULT 0");
    db.exec(
        "CREATE TABLE IF NOT EXISTS worker_speeds ("
        "  worker_id     INTEGER NOT NULL REFERENCES workers(id),"
        "  version_id    INTEGER NOT NULL REFERENCES versions(id),"
        "  nps           INTEGER NOT NULL,"  // nodes per second of one game's engine
        "  games_at_once INTEGER NOT NULL,"  // engines that searched at once when measured
        "  measured_ms   INTEGER NOT NULL,"
        "  PRIMARY KEY (worker_id, version_id));");
}

// Migration 19 (issue 29): the options a version's engine declares, as JSON rows [name, type,
// default, min, max]; '' for none recorded (every version before).
void add_engine_options(Database& db) {
    add_column(db, "versions", "engine_options", "TEXT NOT NULL DEFAULT ''");
}

// Migration 20 (issue 29): a tuning run's averaging (the fraction of the last pairs whose
// values are averaged, the pairs summed so far and each parameter's sum) and its verification
// as a fixed-games run with a book seed of its own; spsa_values shows the reported values.
void add_tune_averaging(Database& db) {
    add_column(db, "spsa_runs", "average", "REAL NOT NULL DEFAULT 0");
    add_column(db, "spsa_runs", "averaged_pairs", "INTEGER NOT NULL DEFAULT 0");
    add_column(db, "spsa_runs", "verify_fixed", "INTEGER NOT NULL DEFAULT 0");
    add_column(db, "spsa_runs", "verify_seed", "INTEGER");
    add_column(db, "spsa_params", "average_sum", "REAL NOT NULL DEFAULT 0");
    db.exec(
        "DROP VIEW IF EXISTS spsa_values;"
        "CREATE VIEW spsa_values AS "
        "SELECT p.run_id AS run, p.idx, p.name AS parameter, p.start, round(p.value, 2) AS value, "
        "       round(p.value - p.start, 2) AS change, p.min, p.max, round(p.c_end, 3) AS c_end, "
        "       p.r_end, s.pairs_applied, s.tuned_version, s.verify_run_id, "
        "       round(CASE WHEN s.averaged_pairs > 0 THEN p.average_sum / s.averaged_pairs "
        "                  ELSE p.value END, 2) AS result, "
        "       s.averaged_pairs "
        "FROM spsa_params p "
        "JOIN spsa_runs s ON s.run_id = p.run_id;");
}

// Migration 21: moves each run's book out of its own column into `books` (store_book), once
// per distinct book, the run's column left empty. A run whose stored book cannot be read keeps
// it where it is (book_id NULL), as it was.
void store_books_once(Database& db) {
    db.exec(
        "CREATE TABLE IF NOT EXISTS books ("
        "  id       INTEGER PRIMARY KEY,"
        "  sha256   TEXT NOT NULL UNIQUE,"  // of the openings' lines, uncompressed
        "  openings INTEGER NOT NULL,"
        "  data     BLOB NOT NULL"  // zlib: one "FEN<TAB>moves" line per opening
        ")");
    add_column(db, "runs", "book_id", "INTEGER");  // books.id
    std::vector<int64_t> runs;
    Statement& list = db.prepare("SELECT id FROM runs WHERE book_id IS NULL ORDER BY id");
    list.bind();
    while (list.step()) runs.push_back(list.int64(0));
    list.reset();
    for (const int64_t run : runs) {  // one book in memory at a time
        Statement& read = db.prepare("SELECT book, book_size FROM runs WHERE id = ?");
        read.bind(run);
        if (!read.step()) {
            read.reset();
            continue;
        }
        const std::optional<std::string> lines = decompress(read.blob(0));
        const uint64_t openings = uint64_t(read.int64(1));
        read.reset();
        if (!lines) continue;
        const int64_t book = store_book(db, *lines, openings);
        Statement& move = db.prepare("UPDATE runs SET book_id = ?, book = x'' WHERE id = ?");
        move.bind(book, run);
        move.run();
    }
}

// Migration 22 (issue 49): each notification's state (pending, delivered, failed: its attempts
// ran out, dropped: its URL was changed or is off the operator's list) and destination (the
// URL's HOST:PORT, which the notifier posts to one at a time; the URL itself for the rows
// before).
void add_notification_states(Database& db) {
    add_column(db, "notifications", "state", "TEXT NOT NULL DEFAULT 'pending'");
    add_column(db, "notifications", "destination", "TEXT NOT NULL DEFAULT ''");
    db.exec(
        "UPDATE notifications SET state = 'delivered' WHERE delivered_ms > 0;"
        "UPDATE notifications SET destination = url;"
        "DROP INDEX IF EXISTS notifications_due;"
        "CREATE INDEX notifications_due ON notifications(next_ms) WHERE state = 'pending';");
}

// Migration 23 (issue 49): who uploaded each engine file, for the quota of each user's files no
// version uses ('' for the files uploaded before).
void add_engine_uploaders(Database& db) {
    add_column(db, "engines", "uploader", "TEXT NOT NULL DEFAULT ''");
}

// Migration 24 (issue 50): one relation for runs that lead to runs. The runs a tuning's
// verification, a chain's steps and a follow-up started, and the run each run was submitted
// like, kept in four places before, become its rows; the follow-up's and the submitted-like
// columns go (the tuning's and the chain's own tables keep their steps' ids, which their views
// show). A database migrated again from an older user_version moves what its columns hold.
void move_run_links(Database& db) {
    db.exec(
        "CREATE TABLE IF NOT EXISTS run_links ("
        "  parent INTEGER NOT NULL REFERENCES runs(id),"
        "  child  INTEGER NOT NULL REFERENCES runs(id),"
        "  reason TEXT NOT NULL,"  // 'verifies', 'chain_step', 'follow_up' or 'submitted_like'
        "  PRIMARY KEY (child, reason));"
        "CREATE INDEX IF NOT EXISTS run_links_parent ON run_links(parent, reason);"
        "INSERT OR IGNORE INTO run_links (parent, child, reason) "
        "  SELECT run_id, verify_run_id, 'verifies' FROM spsa_runs WHERE verify_run_id > 0;"
        "INSERT OR IGNORE INTO run_links (parent, child, reason) "
        "  SELECT run_id, generate_run_id, 'chain_step' FROM chain_generations "
        "  WHERE generate_run_id > 0 UNION ALL "
        "  SELECT run_id, train_run_id, 'chain_step' FROM chain_generations "
        "  WHERE train_run_id > 0 UNION ALL "
        "  SELECT run_id, verify_run_id, 'chain_step' FROM chain_generations "
        "  WHERE verify_run_id > 0;");
    if (has_column(db, "follow_ups", "follow_run_id"))
        db.exec(
            "INSERT OR IGNORE INTO run_links (parent, child, reason) "
            "  SELECT run_id, follow_run_id, 'follow_up' FROM follow_ups WHERE follow_run_id > 0;"
            "DROP INDEX IF EXISTS follow_ups_started;"
            "ALTER TABLE follow_ups DROP COLUMN follow_run_id;");
    if (has_column(db, "runs", "origin_run_id"))
        db.exec(
            "INSERT OR IGNORE INTO run_links (parent, child, reason) "
            "  SELECT origin_run_id, id, 'submitted_like' FROM runs "
            "  WHERE origin_run_id IN (SELECT id FROM runs);"
            "ALTER TABLE runs DROP COLUMN origin_run_id;");
}

// Migration 25 (issue 51): what the service says when its numbers mean nothing. Each part
// below adds its own tables and columns, idempotently (a database migrated again keeps them).

// Runs paused by a fault storm, and each run's own fault bound: run_faults holds each run's
// bound and its count against it (runs stored before have none: they take the coordinator's
// bound and count from their next report); a tuning run counts the pairs it left out.
void add_fault_pauses(Database& db) {
    db.exec(R"(
CREATE TABLE IF NOT EXISTS run_faults (
  run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
  percent       INTEGER NOT NULL,            -- pauses past this percentage of faulty games
  min_games     INTEGER NOT NULL,            -- once this many games are counted
  off           INTEGER NOT NULL DEFAULT 0,  -- 1: never pauses
  faults        INTEGER NOT NULL DEFAULT 0,  -- faulty games counted since from_games
  from_games    INTEGER NOT NULL DEFAULT 0,  -- the run's games at its latest resume (0: none)
  paused_ms     INTEGER,                     -- the pause, NULL while not paused for faults
  pause_version TEXT NOT NULL DEFAULT '',
  pause_engine  TEXT NOT NULL DEFAULT '',
  pause_fault   TEXT NOT NULL DEFAULT '',    -- a games.ending
  pause_fault_games   INTEGER NOT NULL DEFAULT 0,
  pause_faulty_games  INTEGER NOT NULL DEFAULT 0,
  pause_games         INTEGER NOT NULL DEFAULT 0,
  pause_example_game  INTEGER NOT NULL DEFAULT 0,
  pause_reason  TEXT NOT NULL DEFAULT ''
))");
    add_column(db, "spsa_runs", "pairs_faulty", "INTEGER NOT NULL DEFAULT 0");
}

// The evidence of faulty games: each game's UCI exchange and the engine's stderr. A row for
// every faulty game a worker sent evidence of; transcript and stderr (zlib streams) only for
// the first games of each version and fault of a run (domain/evidence.h), NULL for the rest.
void add_fault_evidence(Database& db) {
    db.exec(R"(
CREATE TABLE IF NOT EXISTS fault_evidence (
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  game         INTEGER NOT NULL,          -- games.game
  version_id   INTEGER NOT NULL,          -- the version at fault
  fault        TEXT NOT NULL,             -- a games.ending
  reason       TEXT NOT NULL DEFAULT '',
  command      TEXT NOT NULL DEFAULT '',  -- as the worker ran it
  args         TEXT NOT NULL DEFAULT '',  -- JSON list
  options      TEXT NOT NULL DEFAULT '',  -- JSON list of [name, value]
  position     TEXT NOT NULL DEFAULT '',  -- the last position command
  go           TEXT NOT NULL DEFAULT '',  -- the go command that led to the fault
  transcript   BLOB,                      -- zlib; NULL beyond the bound
  transcript_complete INTEGER NOT NULL DEFAULT 1,
  stderr       BLOB,                      -- zlib; NULL beyond the bound
  stderr_bytes INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, game)
);
CREATE INDEX IF NOT EXISTS fault_evidence_kinds ON fault_evidence (run_id, version_id, fault);
)");
}

// The engine-output warnings counted per run and version, with example lines: one row per
// run, version side and check (match/output_checks.h), its first game keeping the example.
void add_output_warnings(Database& db) {
    db.exec(R"(
CREATE TABLE IF NOT EXISTS output_warnings (
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  test_version INTEGER NOT NULL,  -- 1: the run's test version's engine, 0: the base's
  output_check TEXT NOT NULL,     -- bestmove_none, pv_illegal, ... (docs/engines.md)
  games        INTEGER NOT NULL,  -- games with such lines
  lines        INTEGER NOT NULL,  -- such lines in all
  example_game INTEGER NOT NULL,  -- the first game reported with it (games.game)
  example      TEXT NOT NULL,     -- its first such line (at most 200 bytes)
  go           TEXT NOT NULL,     -- the go command that line answered
  PRIMARY KEY (run_id, test_version, output_check)
))");
}

void add_diagnostics(Database& db) {
    add_fault_pauses(db);
    add_fault_evidence(db);
    add_output_warnings(db);
}

// Workers' identity (issue 52, part A): the machine each worker process runs on (JSON of its
// WorkerIdentity) and its CPU class, also recorded with each report (a batch's class is its
// worker's when it reported).
void add_worker_identity(Database& db) {
    add_column(db, "workers", "identity", "TEXT NOT NULL DEFAULT '{}'");
    add_column(db, "workers", "cpu_class", "TEXT NOT NULL DEFAULT ''");
    add_column(db, "batches", "cpu_class", "TEXT NOT NULL DEFAULT ''");
}

// Builds per instruction set (issue 52, part C): the level an uploaded version's file needs
// ('' none stated: portable), its further builds for other levels, the level of the build each
// lease played, and the builds a worker found its CPU cannot run (they died of SIGILL there).
void add_version_builds(Database& db) {
    add_column(db, "versions", "engine_level", "TEXT NOT NULL DEFAULT ''");
    add_column(db, "batches", "test_build", "TEXT NOT NULL DEFAULT ''");
    add_column(db, "batches", "base_build", "TEXT NOT NULL DEFAULT ''");
    db.exec(R"(
CREATE TABLE IF NOT EXISTS version_builds (
  version_id INTEGER NOT NULL REFERENCES versions(id),
  level      TEXT NOT NULL,                              -- x86-64-v4, ...; '' portable
  sha256     TEXT NOT NULL REFERENCES engines(sha256),
  entry      TEXT NOT NULL DEFAULT '',                   -- archive: the executable inside it
  PRIMARY KEY (version_id, level)
);
CREATE INDEX IF NOT EXISTS version_builds_by_engine ON version_builds(sha256);
CREATE TABLE IF NOT EXISTS build_refusals (
  worker_id  INTEGER NOT NULL REFERENCES workers(id),
  version_id INTEGER NOT NULL REFERENCES versions(id),
  level      TEXT NOT NULL,                              -- 'portable' for the build with none
  message    TEXT NOT NULL DEFAULT '',
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (worker_id, version_id, level)
);
)");
}

// Fleet controls of the worker (issue 52, part D): the runs it takes, whose first, its pinning
// and its exit when idle, as JSON (storage/worker_controls_column.h).
void add_fleet_controls(Database& db) {
    add_column(db, "workers", "controls", "TEXT NOT NULL DEFAULT '{}'");
}

// Fair share between users (issue 52, part E): nothing to store. The scheduler derives each
// user's cores at work from runs.owner and runs.active_cores, and the users' priority range is
// the coordinator's --user-priority-min/--user-priority-max.
void add_fair_share(Database&) {}

void add_fleet_identity(Database& db) {
    add_worker_identity(db);
    add_version_builds(db);
    add_fleet_controls(db);
    add_fair_share(db);
}

// Issue 53, part 1 (50,000 workers): indexes that keep the per-call path of the worker RPCs
// off table scans. Filled in by the scale work.
void add_scale_indexes(Database& db) {
    // A worker's runs failed often enough to back it off (failed_runs, read for every lease
    // request) were a scan of every failure: lease_failures_by_run leads with the run.
    db.exec(
        "CREATE INDEX IF NOT EXISTS lease_failures_by_worker ON lease_failures(worker_id, "
        "run_id)");
}

// Converts the zlib-stored PGN of one table's games to their compact form (encode_pgn), a
// chunk of rows at a time so that a big database never holds its games in memory. A row
// already compact, damaged, or whose compact form would not give its text back is left as it
// is (decode_pgn reads both forms).
void compact_pgn_column(Database& db, const std::string& table) {
    constexpr int64_t kChunk = 512;
    Statement& read = db.prepare("SELECT id, pgn FROM " + identifier(table) +
                                 " WHERE id > ? ORDER BY id LIMIT " + std::to_string(kChunk));
    Statement& write = db.prepare("UPDATE " + identifier(table) + " SET pgn = ? WHERE id = ?");
    int64_t after = 0;
    while (true) {
        std::vector<std::pair<int64_t, std::string>> rows;
        read.bind(after);
        while (read.step()) rows.emplace_back(read.int64(0), read.blob(1));
        read.reset();
        if (rows.empty()) return;
        after = rows.back().first;
        for (auto& [id, stored] : rows) {
            if (!stored.empty() && uint8_t(stored[0]) == kCompactPgnFormat) continue;
            const std::optional<std::string> pgn = decode_pgn(stored);
            if (!pgn) continue;
            const std::string compact = encode_pgn(*pgn);
            if (compact.size() < stored.size()) write.bind(Blob{compact}, id).run();
        }
    }
}

// Issue 53, part 3 (a game in 400 bytes): each game's PGN in its compact form
// (storage/pgn_codec.h), the games and the purged games stored before converted in place.
void compact_game_storage(Database& db) {
    compact_pgn_column(db, "games");
    compact_pgn_column(db, "purged_games");
}

// A migration: SQL, or a step in C++ where SQL alone cannot do it.
struct Migration {
    std::string_view sql;
    void (*step)(Database& db) = nullptr;
};

constexpr std::array<Migration, 28> kMigrations = {{{kSchema1},
                                                    {kSchema2},
                                                    {kSchema3},
                                                    {kSchema4},
                                                    {kSchema5},
                                                    {kSchema6},
                                                    {kSchema7},
                                                    {kSchema8},
                                                    {kSchema9},
                                                    {{}, repair_text},
                                                    {{}, add_adjudication_columns},
                                                    {{}, add_game_endings},
                                                    {{}, add_run_threads},
                                                    {{}, add_run_origin},
                                                    {{}, add_owners_and_changes},
                                                    {kSchema16},
                                                    {kSchema17},
                                                    {{}, add_scaled_clocks},
                                                    {{}, add_engine_options},
                                                    {{}, add_tune_averaging},
                                                    {{}, store_books_once},
                                                    {{}, add_notification_states},
                                                    {{}, add_engine_uploaders},
                                                    {{}, move_run_links},
                                                    {{}, add_diagnostics},
                                                    {{}, add_fleet_identity},
                                                    {{}, add_scale_indexes},
                                                    {{}, compact_game_storage}}};

}  // namespace

int user_version(Database& db) {
    Statement& s = db.prepare("PRAGMA user_version");
    s.bind();
    const int version = s.step() ? int(s.int64(0)) : 0;
    s.reset();
    return version;
}

int schema_version() {
    return int(kMigrations.size());
}

void migrate(Database& db) {
    const int current = user_version(db);
    if (current > schema_version())
        throw StorageError("the database has schema version " + std::to_string(current) +
                           " but this coordinator knows only up to " +
                           std::to_string(schema_version()) + "; use a newer coordinator");
    for (int version = current + 1; version <= schema_version(); ++version) {
        db.exec("BEGIN IMMEDIATE");
        try {
            const Migration& migration = kMigrations[size_t(version - 1)];
            if (!migration.sql.empty()) db.exec(migration.sql);
            if (migration.step) migration.step(db);
            db.exec("PRAGMA user_version = " + std::to_string(version));
            db.exec("COMMIT");
        } catch (...) {
            db.exec("ROLLBACK");
            throw;
        }
    }
}

}  // namespace sparring::coordinator
