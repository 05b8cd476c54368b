// The SQL of the coordinator's first nine schema migrations: the schema as first written and
// the tables, indexes, views and triggers added to it while migrations were SQL alone.
// migrations.cpp lists them in order with the later migrations, most of them steps in C++.
#pragma once

#include <string_view>

namespace sparring::coordinator::migration_sql {

// Migration 1: tokens, versions, runs, workers, batches (leases), results, games, views.
inline constexpr std::string_view kSchema1 = R"sql(
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
inline constexpr std::string_view kSchema2 = R"sql(
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
inline constexpr std::string_view kSchema3 = R"sql(
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
inline constexpr std::string_view kSchema4 = R"sql(
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
inline constexpr std::string_view kSchema5 = R"sql(
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
inline constexpr std::string_view kSchema6 = R"sql(
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
inline constexpr std::string_view kSchema7 = R"sql(
ALTER TABLE batches ADD COLUMN token_id INTEGER NOT NULL DEFAULT 0;
UPDATE batches SET token_id = coalesce((SELECT w.token_id FROM workers w
                                        WHERE w.id = batches.worker_id), 0);
CREATE INDEX batches_leased_by_token ON batches(token_id) WHERE state = 'leased';
)sql";

// Migration 8: the number of leases out per token, kept by triggers in the same transaction
// as every lease's change, so the per-token lease cap reads one row on each work request
// (counting the token's index range cost the writer a sixth of its time with 1,000 workers
// under one token).
inline constexpr std::string_view kSchema8 = R"sql(
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
inline constexpr std::string_view kSchema9 = R"sql(
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

}  // namespace sparring::coordinator::migration_sql
