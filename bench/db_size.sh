#!/usr/bin/env bash
# Database growth per game (docs/operations.md, "Scale on paper"): a coordinator on a fresh SQLite file
# on 127.0.0.1, one real worker, one fixed-games run of the built-in engine against itself;
# then the file's size and each table's share, per game and per million games. Then the same
# games before and after (issue 53): a copy of the file with its games rewritten in the old
# encoding (zlib of the text, sparring-bench-pgn-codec --to-zlib) against the file as stored
# (compact), both vacuumed; and the CPU cost per game of encoding and decoding them.
#   bench/db_size.sh [BUILD_DIR] [GAMES (default 400)] [TC (default nodes=1000)]
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
games=${2:-400}
tc=${3:-nodes=1000}
work=$(mktemp -d)
coordinator= worker_pid=
trap 'kill $worker_pid $coordinator 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tool="$build/coordinator/sparring-coordinator"
db="$work/size.db"
user=$("$tool" token create --db "$db" --role user)
worker=$("$tool" token create --db "$db" --role worker)
"$tool" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" 2>"$work/coordinator.log" &
coordinator=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
address=127.0.0.1:$(cat "$work/port")
cli=("$build/cli/sparring")
remote=(--coordinator "$address" --token "$user")
"${cli[@]}" versions add test "${remote[@]}" >/dev/null
"${cli[@]}" versions add base "${remote[@]}" >/dev/null
empty=$(stat -c %s "$db")
"${cli[@]}" submit test base --kind fixed --games "$games" --tc "$tc" "${remote[@]}" >/dev/null
"$build/worker/sparring-worker" --coordinator "$address" --token "$worker" --concurrency 2 \
    2>"$work/worker.log" &
worker_pid=$!
until [ "$(sqlite3 "$db" "SELECT state FROM runs LIMIT 1")" != active ]; do sleep 1; done
kill -TERM "$worker_pid" "$coordinator"
wait "$worker_pid" "$coordinator" 2>/dev/null || true
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
played=$(sqlite3 "$db" "SELECT count(*) FROM games")
size=$(stat -c %s "$db")
echo "games stored: $played; file: $empty bytes empty, $size bytes after the run"
awk -v s="$size" -v e="$empty" -v g="$played" 'BEGIN {
    b = (s - e) / g
    printf "per game: %.0f bytes; per million games: %.2f GB\n", b, b * 1e6 / 1e9 }'
echo "table (and index) shares of the pages:"
sqlite3 "$db" "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8" |
    awk -F'|' -v g="$played" '{ printf "  %-32s %10d bytes  %8.0f bytes/game\n", $1, $2, $2 / g }'

# The same games in the old encoding and the compact one, each file vacuumed.
codec="$build/bench/sparring-bench-pgn-codec"
cp "$db" "$work/old.db"
"$codec" "$work/old.db" --to-zlib
cp "$db" "$work/new.db"
games_pages="SELECT sum(pgsize) FROM dbstat WHERE name IN ('games', 'sqlite_autoindex_games_1', 'games_faults')"
echo "the same $played games, each file vacuumed: before (zlib) -> after (compact)"
for f in old new; do
    sqlite3 "$work/$f.db" "VACUUM;" >/dev/null
    printf '%s %s %s\n' "$f" "$(stat -c %s "$work/$f.db")" "$(sqlite3 "$work/$f.db" "$games_pages")"
done | awk -v e="$empty" -v g="$played" '{ file[$1] = ($2 - e) / g; rows[$1] = $3 / g }
    END { printf "  file growth per game:             %6.0f -> %4.0f bytes\n", file["old"], file["new"]
          printf "  games table and its indexes:      %6.0f -> %4.0f bytes/game\n", rows["old"], rows["new"] }'
"$codec" "$db"
