#include "coordinator/storage/migrations.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/printable.h"
#include "coordinator/storage/books.h"
#include "coordinator/storage/compression.h"

namespace sparring::coordinator {

namespace {

// Migration 1: tokens, versions, runs, workers, batches (leases), results, games, views.
constexpr std::string_view kSchema1 = R"sql(
CREATE TABLE tokens (
  id          INTEGER PRIMARY KEY,
  hash        TEXT NOT NULL UNIQUE,          -- hex SHA-256 of the secret token
  role        TEXT NOT NULL CHECK (role IN ('worker', 'user')),
  name        TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  revoked     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE versions (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  kind        TEXT NOT NULL CHECK (kind IN ('builtin', 'uci')),
  preset      TEXT,                          -- builtin: preset name
  overrides   TEXT,                          -- builtin: JSON object of overridden parameters
  params      TEXT,                          -- builtin: JSON object of every parameter
  hash_mb     INTEGER NOT NULL DEFAULT 0,
  uci_command TEXT,                          -- uci: command workers run
  uci_options TEXT,                          -- uci: JSON object of UCI options
  bench       INTEGER NOT NULL,              -- bench signature, 0: not checked
  created_ms  INTEGER NOT NULL
);

CREATE TABLE runs (
  id               INTEGER PRIMARY KEY,
  kind             TEXT NOT NULL,            -- 'regression', 'fixed_games'
  state            TEXT NOT NULL,            -- 'active', 'finished', 'stopped'
  result           TEXT NOT NULL DEFAULT '',
  test_version_id  INTEGER NOT NULL REFERENCES versions(id),
  base_version_id  INTEGER NOT NULL REFERENCES versions(id),
  time_control     TEXT NOT NULL,            -- "nodes=1000", "10+0.1", ...
  book_source      TEXT NOT NULL,
  book_size        INTEGER NOT NULL,
  book_random      INTEGER NOT NULL,
  book_seed        INTEGER NOT NULL,
  book             BLOB NOT NULL,            -- zlib: one "FEN<TAB>moves" line per opening
  games            INTEGER NOT NULL,         -- fixed_games: exact; regression: maximum
  elo0             REAL,                     -- regression: SPRT hypotheses and errors
  elo1             REAL,
  alpha            REAL,
  beta             REAL,
  model            TEXT,                     -- 'logistic', 'normalized'
  priority         INTEGER NOT NULL,
  throughput       INTEGER NOT NULL,
  pairs_per_thread INTEGER NOT NULL,
  description      TEXT NOT NULL DEFAULT '',
  next_pair        INTEGER NOT NULL DEFAULT 0,  -- pairs below it were leased at least once
  free_pairs       INTEGER NOT NULL DEFAULT 0,  -- pairs handed back, in free_pairs
  pairs_leased     INTEGER NOT NULL DEFAULT 0,  -- unreported pairs on active leases
  active_leases    INTEGER NOT NULL DEFAULT 0,
  active_cores     INTEGER NOT NULL DEFAULT 0,
  pairs_done       INTEGER NOT NULL DEFAULT 0,  -- counted game pairs
  wins             INTEGER NOT NULL DEFAULT 0,  -- game results of the test version
  draws            INTEGER NOT NULL DEFAULT 0,
  losses           INTEGER NOT NULL DEFAULT 0,
  ll               INTEGER NOT NULL DEFAULT 0,  -- pentanomial pair counts
  ld               INTEGER NOT NULL DEFAULT 0,
  dd_wl            INTEGER NOT NULL DEFAULT 0,
  wd               INTEGER NOT NULL DEFAULT 0,
  ww               INTEGER NOT NULL DEFAULT 0,
  elo              REAL NOT NULL DEFAULT 0,     -- logistic Elo and its 95% interval
  elo_low          REAL NOT NULL DEFAULT 0,
  elo_high         REAL NOT NULL DEFAULT 0,
  los              REAL NOT NULL DEFAULT 0.5,
  nelo             REAL NOT NULL DEFAULT 0,
  nelo_low         REAL NOT NULL DEFAULT 0,
  nelo_high        REAL NOT NULL DEFAULT 0,
  llr              REAL NOT NULL DEFAULT 0,
  llr_lower        REAL NOT NULL DEFAULT 0,
  llr_upper        REAL NOT NULL DEFAULT 0,
  created_ms       INTEGER NOT NULL,
  finished_ms      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_state ON runs(state);

CREATE TABLE free_pairs (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  first_pair  INTEGER NOT NULL,
  pairs       INTEGER NOT NULL,
  PRIMARY KEY (run_id, first_pair)
) WITHOUT ROWID;

CREATE TABLE workers (
  id            INTEGER PRIMARY KEY,
  token_id      INTEGER NOT NULL REFERENCES tokens(id),
  name          TEXT NOT NULL,
  cores         INTEGER NOT NULL,
  memory_mb     INTEGER NOT NULL,
  concurrency   INTEGER NOT NULL,
  uci_engines   TEXT NOT NULL,               -- JSON array of engine commands
  build         TEXT NOT NULL,
  registered_ms INTEGER NOT NULL,
  last_seen_ms  INTEGER NOT NULL,
  lease_id      INTEGER NOT NULL DEFAULT 0,  -- the batch it holds now, 0 when none
  games         INTEGER NOT NULL DEFAULT 0   -- games it has reported
);

CREATE TABLE batches (
  id              INTEGER PRIMARY KEY,       -- the lease id
  run_id          INTEGER NOT NULL REFERENCES runs(id),
  worker_id       INTEGER NOT NULL REFERENCES workers(id),
  first_pair      INTEGER NOT NULL,
  pairs           INTEGER NOT NULL,
  cores           INTEGER NOT NULL,          -- the worker's concurrency when leased
  state           TEXT NOT NULL,             -- 'leased', 'done', 'expired', 'released', 'stopped'
  pairs_reported  INTEGER NOT NULL DEFAULT 0,
  reported        BLOB NOT NULL,             -- bitmap of the reported pairs
  last_sequence   INTEGER NOT NULL DEFAULT 0,
  created_ms      INTEGER NOT NULL,
  expires_ms      INTEGER NOT NULL,
  ended_ms        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX batches_leased_by_expiry ON batches(expires_ms) WHERE state = 'leased';
CREATE INDEX batches_leased_by_run ON batches(run_id) WHERE state = 'leased';

CREATE TABLE results (
  id          INTEGER PRIMARY KEY,
  batch_id    INTEGER NOT NULL REFERENCES batches(id),
  sequence    INTEGER NOT NULL,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  pairs       INTEGER NOT NULL,
  wins        INTEGER NOT NULL,
  draws       INTEGER NOT NULL,
  losses      INTEGER NOT NULL,
  ll          INTEGER NOT NULL,
  ld          INTEGER NOT NULL,
  dd_wl       INTEGER NOT NULL,
  wd          INTEGER NOT NULL,
  ww          INTEGER NOT NULL,
  digest      TEXT NOT NULL,                 -- SHA-256 of the report, to spot altered retries
  received_ms INTEGER NOT NULL,
  UNIQUE (batch_id, sequence)
);
CREATE INDEX results_by_run ON results(run_id);

CREATE TABLE games (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  game        INTEGER NOT NULL,              -- 2 * pair + 0 or 1
  batch_id    INTEGER NOT NULL REFERENCES batches(id),
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  outcome     TEXT NOT NULL,                 -- for the test version: 'win', 'draw', 'loss'
  test_white  INTEGER NOT NULL,
  pgn         BLOB NOT NULL,                 -- zlib-compressed PGN
  UNIQUE (run_id, game)
);

CREATE TABLE bench_mismatches (
  id          INTEGER PRIMARY KEY,
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  version_id  INTEGER NOT NULL REFERENCES versions(id),
  expected    INTEGER NOT NULL,
  computed    INTEGER NOT NULL,
  message     TEXT NOT NULL,
  created_ms  INTEGER NOT NULL
);
CREATE INDEX bench_mismatches_by_worker ON bench_mismatches(worker_id);

CREATE VIEW run_summary AS
SELECT r.id AS run, r.kind, r.state, r.result, t.name AS test, b.name AS base,
       r.time_control, r.games AS games_planned, 2 * r.pairs_done AS games,
       r.wins, r.draws, r.losses, r.ll, r.ld, r.dd_wl, r.wd, r.ww,
       round(r.elo, 2) AS elo, round(r.elo_low, 2) AS elo_low, round(r.elo_high, 2) AS elo_high,
       round(r.los, 4) AS los, round(r.nelo, 2) AS nelo,
       round(r.llr, 3) AS llr, round(r.llr_lower, 3) AS llr_lower,
       round(r.llr_upper, 3) AS llr_upper, r.elo0, r.elo1, r.model, r.priority,
       r.active_leases, datetime(r.created_ms / 1000, 'unixepoch') AS created,
       CASE WHEN r.finished_ms > 0 THEN datetime(r.finished_ms / 1000, 'unixepoch') END
         AS finished
FROM runs r
JOIN versions t ON t.id = r.test_version_id
JOIN versions b ON b.id = r.base_version_id;

CREATE VIEW worker_contribution AS
SELECT w.id AS worker, w.name, res.run_id AS run, count(*) AS reports,
       sum(res.pairs) AS pairs, 2 * sum(res.pairs) AS games, sum(res.wins) AS wins,
       sum(res.draws) AS draws, sum(res.losses) AS losses,
       datetime(max(res.received_ms) / 1000, 'unixepoch') AS last_report
FROM results res
JOIN workers w ON w.id = res.worker_id
GROUP BY res.worker_id, res.run_id;

CREATE VIEW active_leases AS
SELECT ba.id AS lease, ba.run_id AS run, ba.worker_id AS worker, w.name AS worker_name,
       ba.first_pair, ba.pairs, ba.pairs_reported,
       datetime(ba.created_ms / 1000, 'unixepoch') AS leased,
       datetime(ba.expires_ms / 1000, 'unixepoch') AS expires
FROM batches ba
JOIN workers w ON w.id = ba.worker_id
WHERE ba.state = 'leased';
)sql";

// Migration 2: SPSA tuning runs: their parameters and current values, the trajectory, the
// values each leased batch drew its perturbations from, and two views.
constexpr std::string_view kSchema2 = R"sql(
CREATE TABLE spsa_runs (
  run_id         INTEGER PRIMARY KEY REFERENCES runs(id),
  seed           INTEGER NOT NULL,           -- the perturbation of step k comes from (seed, k)
  pairs_applied  INTEGER NOT NULL DEFAULT 0, -- game pairs applied to the values
  verify         INTEGER NOT NULL,           -- 1: a regression run checks the result
  verify_games   INTEGER NOT NULL,           -- its maximum number of games
  elo0           REAL,                       -- its SPRT
  elo1           REAL,
  alpha          REAL,
  beta           REAL,
  model          TEXT,
  tuned_version  TEXT NOT NULL DEFAULT '',   -- the version made of the result
  verify_run_id  INTEGER NOT NULL DEFAULT 0  -- the regression run, 0 until started
);
CREATE INDEX spsa_runs_by_verify_run ON spsa_runs(verify_run_id) WHERE verify_run_id > 0;

CREATE TABLE spsa_params (
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  idx     INTEGER NOT NULL,                  -- order of the parameters in the run
  name    TEXT NOT NULL,                     -- registry name, e.g. 'KnightValueMg'
  start   REAL NOT NULL,
  min     REAL NOT NULL,
  max     REAL NOT NULL,
  c_end   REAL NOT NULL,                     -- perturbation size at the last step
  r_end   REAL NOT NULL,                     -- learning rate at the last step
  value   REAL NOT NULL,                     -- current value (theta)
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

CREATE TABLE spsa_history (
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  pairs        INTEGER NOT NULL,             -- pairs applied when recorded (0: the start)
  idx          INTEGER NOT NULL,             -- spsa_params.idx
  value        REAL NOT NULL,
  recorded_ms  INTEGER NOT NULL,
  PRIMARY KEY (run_id, pairs, idx)
) WITHOUT ROWID;

CREATE TABLE spsa_batches (
  batch_id  INTEGER PRIMARY KEY REFERENCES batches(id),
  theta     TEXT NOT NULL                    -- JSON array: the values its perturbations use
);

CREATE VIEW spsa_values AS
SELECT p.run_id AS run, p.idx, p.name AS parameter, p.start, round(p.value, 2) AS value,
       round(p.value - p.start, 2) AS change, p.min, p.max, round(p.c_end, 3) AS c_end,
       p.r_end, s.pairs_applied, s.tuned_version, s.verify_run_id
FROM spsa_params p
JOIN spsa_runs s ON s.run_id = p.run_id;

CREATE VIEW spsa_trajectory AS
SELECT h.run_id AS run, h.pairs, 2 * h.pairs AS games, p.name AS parameter,
       round(h.value, 2) AS value, p.start,
       datetime(h.recorded_ms / 1000, 'unixepoch') AS recorded
FROM spsa_history h
JOIN spsa_params p ON p.run_id = h.run_id AND p.idx = h.idx;
)sql";

// Migration 3: self-play training: generation runs and their labelled positions, training
// runs with their loss curves and results, and chains of generate -> train -> verify.
constexpr std::string_view kSchema3 = R"sql(
CREATE TABLE generate_runs (
  run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
  seed          INTEGER NOT NULL,            -- with the game number, picks its opening
  random_plies  INTEGER NOT NULL,            -- random moves after the book opening
  filters       TEXT NOT NULL,               -- positions left out: 'check,tactical,mate', ...
  max_plies     INTEGER NOT NULL,            -- a game this long is a draw
  positions     INTEGER NOT NULL DEFAULT 0   -- labelled positions stored
);

CREATE TABLE training_positions (
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  game    INTEGER NOT NULL,                  -- 2 * pair + 0 or 1, as in games
  count   INTEGER NOT NULL,                  -- positions kept from the game
  data    BLOB NOT NULL,                     -- count records of 36 bytes (position_record.h)
  PRIMARY KEY (run_id, game)
);

CREATE TABLE train_runs (
  run_id         INTEGER PRIMARY KEY REFERENCES runs(id),
  data_runs      TEXT NOT NULL,              -- JSON array of generation run ids
  epochs         INTEGER NOT NULL,
  learning_rate  REAL NOT NULL,
  l2             REAL NOT NULL,
  k              REAL,                       -- given K; NULL: fitted
  batch_size     INTEGER NOT NULL,           -- 0: full batch
  select_params  TEXT NOT NULL,              -- parameter selection, 'all' by default
  threads        INTEGER NOT NULL,
  seed           INTEGER NOT NULL,
  epoch          INTEGER NOT NULL DEFAULT 0, -- epochs done
  positions      INTEGER NOT NULL DEFAULT 0, -- in the training set
  k_used         REAL NOT NULL DEFAULT 0,
  initial_loss   REAL NOT NULL DEFAULT 0,
  final_loss     REAL NOT NULL DEFAULT 0,    -- with the rounded result
  params         TEXT NOT NULL DEFAULT '',   -- the result: JSON object of every parameter
  bench          INTEGER NOT NULL DEFAULT 0  -- the result's bench signature
);

CREATE TABLE train_loss (
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  epoch   INTEGER NOT NULL,                  -- 1, 2, ...
  loss    REAL NOT NULL,
  PRIMARY KEY (run_id, epoch)
) WITHOUT ROWID;

CREATE TABLE chain_runs (
  run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
  generations   INTEGER NOT NULL,
  verify_games  INTEGER NOT NULL,
  name          TEXT NOT NULL                -- prefix of the versions it makes
);

CREATE TABLE chain_generations (
  run_id           INTEGER NOT NULL REFERENCES runs(id),
  generation       INTEGER NOT NULL,         -- 1, 2, ...
  version          TEXT NOT NULL,            -- played and trained from
  generate_run_id  INTEGER NOT NULL DEFAULT 0,
  train_run_id     INTEGER NOT NULL DEFAULT 0,
  verify_run_id    INTEGER NOT NULL DEFAULT 0,
  trained_version  TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, generation)
) WITHOUT ROWID;
CREATE INDEX chain_generations_by_generate ON chain_generations(generate_run_id);
CREATE INDEX chain_generations_by_train ON chain_generations(train_run_id);
CREATE INDEX chain_generations_by_verify ON chain_generations(verify_run_id);

CREATE VIEW chain_summary AS
SELECT g.run_id AS run, g.generation, g.version, g.trained_version,
       g.generate_run_id, gr.positions, g.train_run_id, t.final_loss,
       g.verify_run_id, round(v.elo, 1) AS elo, round(v.elo_low, 1) AS elo_low,
       round(v.elo_high, 1) AS elo_high, 2 * v.pairs_done AS verify_games, v.result
FROM chain_generations g
LEFT JOIN generate_runs gr ON gr.run_id = g.generate_run_id
LEFT JOIN train_runs t ON t.run_id = g.train_run_id
LEFT JOIN runs v ON v.id = g.verify_run_id;
)sql";

// Migration 4: purges of a worker's games from a run (who, when, what they counted), the
// purged reports and games kept apart from the counted ones, a per-worker index of results,
// and the keys that let an interrupted import of positions continue in its run.
constexpr std::string_view kSchema4 = R"sql(
CREATE TABLE purges (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  token_id    INTEGER NOT NULL REFERENCES tokens(id),  -- the user token that purged
  peer        TEXT NOT NULL DEFAULT '',                 -- where the call came from
  purged_ms   INTEGER NOT NULL,
  pairs       INTEGER NOT NULL,                         -- what the purged reports counted
  wins        INTEGER NOT NULL,
  draws       INTEGER NOT NULL,
  losses      INTEGER NOT NULL,
  ll          INTEGER NOT NULL,
  ld          INTEGER NOT NULL,
  dd_wl       INTEGER NOT NULL,
  wd          INTEGER NOT NULL,
  ww          INTEGER NOT NULL,
  UNIQUE (run_id, worker_id)
);
CREATE INDEX purges_by_worker ON purges(worker_id);

ALTER TABLE results ADD COLUMN purge_id INTEGER NOT NULL DEFAULT 0;  -- 0: counted
CREATE INDEX results_by_worker ON results(worker_id, run_id);

CREATE TABLE purged_games (
  id          INTEGER PRIMARY KEY,
  purge_id    INTEGER NOT NULL REFERENCES purges(id),
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  game        INTEGER NOT NULL,              -- the number it had in games
  batch_id    INTEGER NOT NULL REFERENCES batches(id),
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  outcome     TEXT NOT NULL,
  test_white  INTEGER NOT NULL,
  pgn         BLOB NOT NULL
);
CREATE INDEX purged_games_by_purge ON purged_games(purge_id);

CREATE TABLE position_imports (
  run_id      INTEGER PRIMARY KEY REFERENCES runs(id),
  import_key  TEXT NOT NULL                  -- SHA-256 of the import's positions and chunking
);
CREATE INDEX position_imports_by_key ON position_imports(import_key);
)sql";

// Migration 5: uploaded engine files (stored beside the database, in DB.engines/SHA256),
// the versions that run them, and the workers that accept them.
constexpr std::string_view kSchema5 = R"sql(
CREATE TABLE engines (
  sha256      TEXT PRIMARY KEY,              -- hex SHA-256 of the file: its name on disk
  size        INTEGER NOT NULL,              -- bytes
  archive     INTEGER NOT NULL,              -- 1: a .tar.gz archive, 0: an executable
  created_ms  INTEGER NOT NULL
) WITHOUT ROWID;

-- An uploaded version has kind 'uci' and engine_sha256 set; uci_command is then NULL.
ALTER TABLE versions ADD COLUMN engine_sha256 TEXT REFERENCES engines(sha256);
ALTER TABLE versions ADD COLUMN engine_entry TEXT;  -- archive: the executable inside it
ALTER TABLE versions ADD COLUMN engine_args TEXT;   -- JSON array of arguments
CREATE INDEX versions_by_engine ON versions(engine_sha256);

ALTER TABLE workers ADD COLUMN accept_uploaded INTEGER NOT NULL DEFAULT 0;
)sql";

// Migration 6: leases that failed (released for an engine failure), for the back-off of a
// worker from a run and the stop of a run that fails on several workers.
constexpr std::string_view kSchema6 = R"sql(
CREATE TABLE lease_failures (
  batch_id    INTEGER PRIMARY KEY REFERENCES batches(id),
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  worker_id   INTEGER NOT NULL REFERENCES workers(id),
  message     TEXT NOT NULL,
  created_ms  INTEGER NOT NULL
);
CREATE INDEX lease_failures_by_run ON lease_failures(run_id, worker_id);
)sql";

// Migration 7: each lease names its worker's token, so that the per-token lease cap counts
// an index range of the token's leases (at most the cap) instead of joining every lease out
// with its worker on each work request.
constexpr std::string_view kSchema7 = R"sql(
ALTER TABLE batches ADD COLUMN token_id INTEGER NOT NULL DEFAULT 0;
UPDATE batches SET token_id = coalesce((SELECT w.token_id FROM workers w
                                        WHERE w.id = batches.worker_id), 0);
CREATE INDEX batches_leased_by_token ON batches(token_id) WHERE state = 'leased';
)sql";

// Migration 8: the number of leases out per token, kept by triggers in the same transaction
// as every lease's change, so the per-token lease cap reads one row on each work request
// (counting the token's index range cost the writer a sixth of its time with 1,000 workers
// under one token).
constexpr std::string_view kSchema8 = R"sql(
DROP INDEX batches_leased_by_token;
CREATE TABLE token_leases (
  token_id  INTEGER PRIMARY KEY,
  leased    INTEGER NOT NULL
);
INSERT INTO token_leases (token_id, leased)
  SELECT token_id, count(*) FROM batches WHERE state = 'leased' GROUP BY token_id;
CREATE TRIGGER token_leases_insert AFTER INSERT ON batches WHEN new.state = 'leased'
BEGIN
  INSERT INTO token_leases (token_id, leased) VALUES (new.token_id, 1)
    ON CONFLICT (token_id) DO UPDATE SET leased = leased + 1;
END;
CREATE TRIGGER token_leases_update AFTER UPDATE OF state, token_id ON batches
  WHEN (old.state = 'leased') != (new.state = 'leased') OR old.token_id != new.token_id
BEGIN
  UPDATE token_leases SET leased = leased - 1
    WHERE old.state = 'leased' AND token_id = old.token_id;
  INSERT INTO token_leases (token_id, leased) SELECT new.token_id, 1 WHERE new.state = 'leased'
    ON CONFLICT (token_id) DO UPDATE SET leased = leased + 1;
END;
CREATE TRIGGER token_leases_delete AFTER DELETE ON batches WHEN old.state = 'leased'
BEGIN
  UPDATE token_leases SET leased = leased - 1 WHERE token_id = old.token_id;
END;
)sql";

// Migration 9: each worker's counted totals per run, kept by triggers on `results` (a report
// counted adds, a purge takes away) in the same transaction, so that a run's worker fits (its
// page, `sparring show`, the quarantine check of each work request) read one row per worker
// instead of summing every report of the run (35 ms for a run of 200,000 games).
constexpr std::string_view kSchema9 = R"sql(
CREATE TABLE run_workers (
  run_id     INTEGER NOT NULL,
  worker_id  INTEGER NOT NULL,
  pairs      INTEGER NOT NULL,
  wins       INTEGER NOT NULL,
  draws      INTEGER NOT NULL,
  losses     INTEGER NOT NULL,
  ll         INTEGER NOT NULL,
  ld         INTEGER NOT NULL,
  dd_wl      INTEGER NOT NULL,
  wd         INTEGER NOT NULL,
  ww         INTEGER NOT NULL,
  PRIMARY KEY (run_id, worker_id)
) WITHOUT ROWID;
INSERT INTO run_workers (run_id, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww)
  SELECT run_id, worker_id, sum(pairs), sum(wins), sum(draws), sum(losses), sum(ll), sum(ld),
         sum(dd_wl), sum(wd), sum(ww)
  FROM results WHERE purge_id = 0 GROUP BY run_id, worker_id;
CREATE TRIGGER run_workers_insert AFTER INSERT ON results WHEN new.purge_id = 0
BEGIN
  INSERT INTO run_workers (run_id, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww)
    VALUES (new.run_id, new.worker_id, new.pairs, new.wins, new.draws, new.losses,
            new.ll, new.ld, new.dd_wl, new.wd, new.ww)
    ON CONFLICT (run_id, worker_id) DO UPDATE SET
      pairs = pairs + excluded.pairs, wins = wins + excluded.wins, draws = draws + excluded.draws,
      losses = losses + excluded.losses, ll = ll + excluded.ll, ld = ld + excluded.ld, dd_wl = dd_wl + excluded.dd_wl,
      wd = wd + excluded.wd, ww = ww + excluded.ww;
END;
CREATE TRIGGER run_workers_uncount AFTER UPDATE OF purge_id ON results
  WHEN old.purge_id = 0 AND new.purge_id != 0
BEGIN
  INSERT INTO run_workers (run_id, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww)
    VALUES (old.run_id, old.worker_id, -old.pairs, -old.wins, -old.draws, -old.losses,
            -old.ll, -old.ld, -old.dd_wl, -old.wd, -old.ww)
    ON CONFLICT (run_id, worker_id) DO UPDATE SET
      pairs = pairs + excluded.pairs, wins = wins + excluded.wins, draws = draws + excluded.draws,
      losses = losses + excluded.losses, ll = ll + excluded.ll, ld = ld + excluded.ld, dd_wl = dd_wl + excluded.dd_wl,
      wd = wd + excluded.wd, ww = ww + excluded.ww;
END;
CREATE TRIGGER run_workers_recount AFTER UPDATE OF purge_id ON results
  WHEN old.purge_id != 0 AND new.purge_id = 0
BEGIN
  INSERT INTO run_workers (run_id, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww)
    VALUES (new.run_id, new.worker_id, new.pairs, new.wins, new.draws, new.losses,
            new.ll, new.ld, new.dd_wl, new.wd, new.ww)
    ON CONFLICT (run_id, worker_id) DO UPDATE SET
      pairs = pairs + excluded.pairs, wins = wins + excluded.wins, draws = draws + excluded.draws,
      losses = losses + excluded.losses, ll = ll + excluded.ll, ld = ld + excluded.ld, dd_wl = dd_wl + excluded.dd_wl,
      wd = wd + excluded.wd, ww = ww + excluded.ww;
END;
CREATE TRIGGER run_workers_delete AFTER DELETE ON results WHEN old.purge_id = 0
BEGIN
  INSERT INTO run_workers (run_id, worker_id, pairs, wins, draws, losses, ll, ld, dd_wl, wd, ww)
    VALUES (old.run_id, old.worker_id, -old.pairs, -old.wins, -old.draws, -old.losses,
            -old.ll, -old.ld, -old.dd_wl, -old.wd, -old.ww)
    ON CONFLICT (run_id, worker_id) DO UPDATE SET
      pairs = pairs + excluded.pairs, wins = wins + excluded.wins, draws = draws + excluded.draws,
      losses = losses + excluded.losses, ll = ll + excluded.ll, ld = ld + excluded.ld, dd_wl = dd_wl + excluded.dd_wl,
      wd = wd + excluded.wd, ww = ww + excluded.ww;
END;
)sql";

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

// A migration: SQL, or a step in C++ where SQL alone cannot do it.
struct Migration {
    std::string_view sql;
    void (*step)(Database& db) = nullptr;
};

constexpr std::array<Migration, 24> kMigrations = {{{kSchema1},
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
                                                    {{}, move_run_links}}};

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
