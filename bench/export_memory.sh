#!/usr/bin/env bash
# Bulk export's memory (issue 53, part 3): a database of two runs, one of SMALL games and one of
# LARGE games (PGN laid out as a worker writes it, 2.9 KB each, stored zlib: the coordinator
# reads every format through decode_pgn), served by a fresh coordinator; a bulk export of the
# small run, then five of the large run, the coordinator's peak RSS (VmHWM) read after each.
# The export holds one chunk (500 games or 1 MiB of PGN); what else grows is SQLite's page cache
# of the reader connections (PRAGMA cache_size, 64 MiB each), which levels off whatever the
# export's size.
#
#   bench/export_memory.sh [BUILD_DIR] [SMALL] [LARGE]     (defaults: build 1000 200000)
set -euo pipefail
build=${1:-build}
small=${2:-1000}
large=${3:-200000}
build=$(cd "$build" && pwd)
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
db=$dir/export.db
token=$("$build/coordinator/sparring-coordinator" token create --db "$db" --role user --name bench 2>/dev/null | head -1)
python3 - "$db" "$small" "$large" <<'PY'
import sqlite3, sys, zlib, random
db, small, large = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
c.execute("INSERT INTO versions (name, kind, uci_command, uci_options, bench, created_ms) VALUES ('a', 'uci', '/usr/games/stockfish', '{}', 0, 1), ('b', 'uci', '/usr/games/stockfish', '{}', 0, 1)")
c.execute("INSERT INTO workers (token_id, name, cores, memory_mb, concurrency, uci_engines, build, registered_ms, last_seen_ms) VALUES (1, 'box', 2, 1024, 2, '[]', 'x', 1, 1)")
moves = " ".join(f"{n}. e4 {{+0.25/12 0.010s}} e5 {{-0.20/11 0.011s}}" for n in range(1, 61))
for run, (count, tc) in enumerate([(small, "nodes=1000"), (large, "10+0.1")], start=1):
    c.execute("INSERT INTO runs (id, kind, state, test_version_id, base_version_id, time_control, book_source, book_size, book_random, book_seed, book, games, priority, throughput, pairs_per_thread, created_ms, finished_ms) VALUES (?, 'fixed_games', 'finished', 1, 2, ?, 'x', 1, 0, 0, ?, ?, 0, 100, 1, 1000, 2000)", (run, tc, zlib.compress(b"startpos\t"), count))
    c.execute("INSERT INTO batches (id, run_id, worker_id, first_pair, pairs, cores, state, reported, created_ms, expires_ms) VALUES (?, ?, 1, 0, ?, 2, 'done', x'00', 1500, 1600)", (run, run, count // 2))
    rows = []
    for g in range(count):
        pgn = (f'[Event "Sparring run {run}"]\n[Site "box"]\n[Round "{g // 2 + 1}"]\n[White "a"]\n[Black "b"]\n'
               f'[Result "1/2-1/2"]\n[TimeControl "{tc}"]\n\n{moves} {random.random():.12f} 1/2-1/2\n')
        rows.append((run, g, run, 1, "draw", g % 2, zlib.compress(pgn.encode())))
        if len(rows) == 10000:
            c.executemany("INSERT INTO games (run_id, game, batch_id, worker_id, outcome, test_white, pgn) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            rows = []
    c.executemany("INSERT INTO games (run_id, game, batch_id, worker_id, outcome, test_white, pgn) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
c.commit()
PY
"$build/coordinator/sparring-coordinator" serve --db "$db" --listen 127.0.0.1:0 --port-file "$dir/port" >"$dir/coordinator.log" 2>&1 &
pid=$!
while [ ! -s "$dir/port" ]; do sleep 0.1; done
export SPARRING_COORDINATOR=127.0.0.1:$(cat "$dir/port") SPARRING_TOKEN=$token
hwm() { awk '/VmHWM/ {print $2}' "/proc/$pid/status"; }
echo "coordinator at start: VmHWM $(hwm) kB"
for run in 1 2 2 2 2 2; do
  start=$(date +%s.%N)
  "$build/cli/sparring" export "$run" --kind fixed --out "$dir/run$run.pgn.gz" 2>&1
  end=$(date +%s.%N)
  games=$(zcat "$dir/run$run.pgn.gz" | grep -c '^\[Event ')
  pgn=$(zcat "$dir/run$run.pgn.gz" | wc -c)
  echo "run $run: $games games, $((pgn / 1048576)) MiB of PGN in $(echo "$end - $start" | bc) s; coordinator VmHWM $(hwm) kB"
done
