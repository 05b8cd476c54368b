#!/usr/bin/env bash
# The main job, called by `deploy/setup.sh demo` with the build directory: a local cluster (a
# coordinator on an SQLite file and two workers) tunes the piece values with SPSA, starting
# from the `seed` preset (reporting the average of the last 40% of its trajectory), then
# verifies the result with an SPRT match against `seed` and measures it against the hand-set
# `default` with a fixed number of games from another book seed, and leaves the database
# behind for sqlite3.
#
# The coordinator also serves the web dashboard; the demo prints its URL.
#
# Settings (environment): SPARRING_DEMO_DB (default ./sparring-demo.db), SPARRING_DEMO_GAMES
# (tuning games), SPARRING_DEMO_NODES (nodes per move), SPARRING_DEMO_VERIFY_GAMES (most games
# of the verification), SPARRING_DEMO_CHECK_GAMES (games against `default`, default 1000),
# SPARRING_DEMO_R_END (SPSA learning rate at the last step),
# SPARRING_DEMO_HTTP (the dashboard's address, default 127.0.0.1:0: a free port, printed).
set -euo pipefail
build=$(cd "${1:?usage: demo.sh BUILD_DIR}" && pwd)
engine="$build/engine/sparring-engine"
coordinator="$build/coordinator/sparring-coordinator"
worker="$build/worker/sparring-worker"
cli="$build/cli/sparring"
db=$(realpath -m "${SPARRING_DEMO_DB:-sparring-demo.db}")
games=${SPARRING_DEMO_GAMES:-6000}
nodes=${SPARRING_DEMO_NODES:-1000}
verify_games=${SPARRING_DEMO_VERIFY_GAMES:-2000}
check_games=${SPARRING_DEMO_CHECK_GAMES:-1000}
r_end=${SPARRING_DEMO_R_END:-0.01}
http=${SPARRING_DEMO_HTTP:-127.0.0.1:0}
logs=$(mktemp -d "${TMPDIR:-/tmp}/sparring-demo.XXXXXX")
started=$(date +%s)
coordinator_pid=
worker_pids=()

# Stops the workers (they hand back their leases), then the coordinator, and waits for them.
stop_cluster() {
    if [ ${#worker_pids[@]} -gt 0 ]; then
        kill -TERM "${worker_pids[@]}" 2>/dev/null || true
        wait "${worker_pids[@]}" 2>/dev/null || true
        worker_pids=()
    fi
    if [ -n "$coordinator_pid" ]; then
        kill -TERM "$coordinator_pid" 2>/dev/null || true
        wait "$coordinator_pid" 2>/dev/null || true
        coordinator_pid=
    fi
}
trap stop_cluster EXIT
trap 'echo; echo "demo: interrupted; logs in $logs" >&2; exit 130' INT TERM

echo "== sanity: perft 5 from the start position (4,865,609 nodes is the known count)"
"$engine" perft 5 | grep 'Nodes searched'

echo
echo "== a local cluster: coordinator on $db, two workers"
if [ -e "$db" ]; then
    echo "   (replacing the database of an earlier demo)"
    rm -f "$db" "$db-wal" "$db-shm"
fi
user_token=$("$coordinator" token create --db "$db" --role user --name demo-user)
worker_token=$("$coordinator" token create --db "$db" --role worker --name demo-workers)
"$coordinator" serve --db "$db" --listen 127.0.0.1:0 --port-file "$logs/port" \
    --http-listen "$http" --http-port-file "$logs/http-port" \
    --heartbeat-seconds 2 >"$logs/coordinator.log" 2>&1 &
coordinator_pid=$!
for _ in $(seq 100); do
    [ -s "$logs/port" ] && break
    kill -0 "$coordinator_pid" 2>/dev/null || { cat "$logs/coordinator.log" >&2; exit 1; }
    sleep 0.1
done
[ -s "$logs/port" ] || { echo "demo: the coordinator did not start" >&2; exit 1; }
for _ in $(seq 100); do [ -s "$logs/http-port" ] && break; sleep 0.1; done
export SPARRING_COORDINATOR="127.0.0.1:$(cat "$logs/port")" SPARRING_TOKEN="$user_token"
for i in 1 2; do
    "$worker" --coordinator "$SPARRING_COORDINATOR" --token "$worker_token" --concurrency 1 \
        --name "demo-worker-$i" >"$logs/worker-$i.log" 2>&1 &
    worker_pids+=($!)
done
echo "   coordinator $SPARRING_COORDINATOR (pid $coordinator_pid), workers ${worker_pids[*]}," \
    "logs in $logs"
echo "   dashboard: http://${http%:*}:$(cat "$logs/http-port")/ (every run, live)"

echo
echo "== version 'seed': the built-in engine with the seed's piece values"
"$cli" versions add seed --preset seed --description "piece values of the seed's type codes"
"$cli" versions add default --preset default --description "the engine's hand-set values"

echo
echo "== SPSA: the 10 piece values (Material), $games games at nodes=$nodes, then an SPRT check"
submitted=$("$cli" submit tune seed --params Material --games "$games" --tc "nodes=$nodes" \
    --r-end "$r_end" --average 0.4 --verify --verify-games "$verify_games" --elo0 0 --elo1 10 \
    --seed 1 \
    --description "demo: piece values from the seed preset")
echo "$submitted"
run=$(echo "$submitted" | awk '{print $2}')
dashboard="http://${http%:*}:$(cat "$logs/http-port")"
echo "   live in the browser: $dashboard/runs/$run"
"$cli" show "$run" --watch
verify=$("$cli" show "$run" | sed -n 's/^verification: run \([0-9]*\),.*/\1/p')
if [ -z "$verify" ]; then
    echo "demo: the verification run did not start; see $logs" >&2
    exit 1
fi

echo
echo "== verification: run $verify, the tuned values against seed (SPRT elo0=0 elo1=10)"
"$cli" show "$verify" --watch
tuned=$("$cli" show "$verify" | awk '/^test:/ { print $2 }')

echo
echo "== the tuned values against the hand-set default: $check_games games, book seed 2"
submitted=$("$cli" submit "$tuned" default --kind fixed --games "$check_games" \
    --tc "nodes=$nodes" --seed 2 --description "demo: $tuned against default")
check=$(echo "$submitted" | awk '{print $2}')
"$cli" show "$check" --watch

echo
echo "== where the piece values went (start -> end) and the Elo gained"
"$cli" show "$run"
echo
# Prints a run's Elo line of `show` (and its median-unbiased one, for an SPRT run).
elo_of() { "$cli" show "$1" | sed -n 's/^\(Elo[^:]*\): */\1 /p'; }
echo "== $tuned against seed (run $verify, SPRT):"
elo_of "$verify"
echo "== $tuned against default (run $check, $check_games games):"
elo_of "$check"
stop_cluster
elapsed=$(($(date +%s) - started))
echo
echo "Done in $((elapsed / 60)) min $((elapsed % 60)) s. The database stays in $db; query it with sqlite3:"
cat <<EOF
  sqlite3 -header -column $db "SELECT parameter, start, value, change FROM spsa_values WHERE run = $run"
  sqlite3 -header -column $db "SELECT games, value FROM spsa_trajectory WHERE run = $run AND parameter = 'QueenValueMg' ORDER BY games DESC LIMIT 10"
  sqlite3 -header -column $db "SELECT run, kind, state, result, test, base, games, elo, elo_low, elo_high, llr FROM run_summary"
EOF
