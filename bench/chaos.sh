#!/bin/bash
# Chaos: four runs at once (fixed games, an SPRT, SPSA tuning and self-play generation) played
# by workers on 127.0.0.1 while the coordinator is killed with SIGKILL and restarted KILLS times
# and workers are killed at random and replaced; then the runs go on to their end. Afterwards SQL on the database checks that
# every game number of every run is stored exactly once (0 .. 2 * pairs - 1, no gaps), that each
# run's counts equal its games table's, that the SPSA run applied each pair once, that each
# generated game's positions are stored once, and that the SPRT decided. Prints the figures.
#
# Usage: bench/chaos.sh BUILD_DIR [KILLS] [WORKERS]
#   KILLS    coordinator kills (default 20)   WORKERS  worker processes (default 3)
# Environment: WORK_DIR (default a new temporary directory; the database stays there),
# NODES (default 200: nodes a move), FIXED, TUNE, GENERATE (games of those runs: 200, 200, 100).
set -euo pipefail

[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$(realpath "$1")
kills=${2:-20}
worker_count=${3:-3}
nodes=${NODES:-200}
fixed_games=${FIXED:-200}
tune_games=${TUNE:-200}
generate_games=${GENERATE:-100}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-chaos.XXXXXX")}
mkdir -p "$work"
coordinator="$build/coordinator/sparring-coordinator"
worker="$build/worker/sparring-worker"
cli="$build/cli/sparring"
for binary in "$coordinator" "$worker" "$cli"; do
    [ -x "$binary" ] || { echo "missing $binary: build first" >&2; exit 1; }
done
db="$work/chaos.db"
rm -f "$db" "$db-wal" "$db-shm" "$work"/*.log
coordinator_pid=
declare -A worker_pids=()
# Kills whatever is still running on exit.
cleanup() {
    kill -KILL "${worker_pids[@]}" $coordinator_pid 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 1' INT TERM

user_token=$("$coordinator" token create --db "$db" --role user --name chaos-user)
worker_token=$("$coordinator" token create --db "$db" --role worker --name chaos-workers)
port=0
starts=0
# Starts the coordinator (on the port of its first start) and waits until it serves.
start_coordinator() {
    rm -f "$work/port"
    starts=$((starts + 1))
    "$coordinator" serve --db "$db" --listen "127.0.0.1:$port" --port-file "$work/port" \
        --heartbeat-seconds 1 --lease-seconds 10 --pairs-per-thread 2 \
        >>"$work/coordinator.log" 2>&1 &
    coordinator_pid=$!
    for _ in $(seq 300); do [ -s "$work/port" ] && break; sleep 0.05; done
    [ -s "$work/port" ] || { tail -n 20 "$work/coordinator.log" >&2; exit 1; }
    port=$(cat "$work/port")
}
# Starts worker $1 (a new process under the same name after a kill).
start_worker() {
    "$worker" --coordinator "127.0.0.1:$port" --token "$worker_token" --concurrency 1 \
        --name "chaos-$1" --report-seconds 1 >>"$work/worker-$1.log" 2>&1 &
    worker_pids[$1]=$!
}
sql() { sqlite3 -batch -noheader "$db" "$1"; }

start_coordinator
export SPARRING_COORDINATOR="127.0.0.1:$port" SPARRING_TOKEN="$user_token"
"$cli" versions add a >/dev/null
"$cli" versions add b --set KnightValueMg=200,KnightValueEg=200 >/dev/null
"$cli" submit a b --kind fixed --games "$fixed_games" --tc "nodes=$nodes" >/dev/null
"$cli" submit a b --elo0 0 --elo1 20 --games 4000 --tc "nodes=$nodes" >/dev/null
"$cli" submit tune a --params Material --games "$tune_games" --tc "nodes=$nodes" >/dev/null
"$cli" submit generate --version a --games "$generate_games" --nodes "$nodes" >/dev/null
echo "chaos: coordinator 127.0.0.1:$port, $worker_count workers, database $db," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$worker_count"); do start_worker "$i"; done

start=$(date +%s.%N)
# The chaos starts once the workers play (a new worker first checks the versions' bench
# signatures), and the runs are sized to last past its KILLS kills.
deadline=$(($(date +%s) + 1800))
until [ "$(sql "SELECT count(*) FROM results")" -gt 0 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "chaos: FAILED: no worker played" >&2; exit 1; }
    sleep 1
done
coordinator_kills=0
worker_kills=0
# Kills at random moments: the coordinator every 2-6 s (restarted after up to a second), and
# each time a worker with probability 1/4 (replaced at once).
while [ "$coordinator_kills" -lt "$kills" ]; do
    sleep "$((RANDOM % 5 + 2)).$((RANDOM % 10))"
    kill -KILL "$coordinator_pid"
    wait "$coordinator_pid" 2>/dev/null || true
    coordinator_kills=$((coordinator_kills + 1))
    if [ $((RANDOM % 4)) -eq 0 ]; then
        victim=$((RANDOM % worker_count + 1))
        kill -KILL "${worker_pids[$victim]}"
        wait "${worker_pids[$victim]}" 2>/dev/null || true
        worker_kills=$((worker_kills + 1))
        start_worker "$victim"
    fi
    sleep "0.$((RANDOM % 10))"
    start_coordinator
    echo "chaos: kill $coordinator_kills of the coordinator ($worker_kills of workers):" \
        "$(sql "SELECT group_concat(kind || ' ' || state || ' ' || (2 * pairs_done), ', ') FROM runs")"
done
during=$(sql "SELECT count(*) FROM games")
echo "chaos: $coordinator_kills kills done, $during games stored so far; the runs go on to their end"
deadline=$(($(date +%s) + 3600))
while [ "$(sql "SELECT count(*) FROM runs WHERE state = 'active' AND id <= 4")" != 0 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "chaos: FAILED: runs still active" >&2; exit 1; }
    sleep 2
done
elapsed=$(awk "BEGIN { printf \"%.0f\", $(date +%s.%N) - $start }")
kill -TERM "${worker_pids[@]}" "$coordinator_pid" 2>/dev/null || true
wait 2>/dev/null || true

# Each check prints its verdict; any failure fails the benchmark.
failures=0
check() {
    local what=$1 got=$2 want=$3
    if [ "$got" = "$want" ]; then
        echo "  ok    $what: $got"
    else
        echo "  FAIL  $what: $got, expected $want"
        failures=$((failures + 1))
    fi
}
echo "chaos: checks on the database"
for run in $(sql "SELECT id FROM runs WHERE kind <> 'generate' ORDER BY id"); do
    kind=$(sql "SELECT kind FROM runs WHERE id = $run")
    pairs=$(sql "SELECT pairs_done FROM runs WHERE id = $run")
    check "run $run ($kind): games stored" "$(sql "SELECT count(*) FROM games WHERE run_id = $run")" $((2 * pairs))
    check "run $run ($kind): game numbers 0..2*pairs-1, each once" \
        "$(sql "SELECT count(DISTINCT game) || ' ' || min(game) || ' ' || max(game) FROM games WHERE run_id = $run")" \
        "$((2 * pairs)) 0 $((2 * pairs - 1))"
    check "run $run ($kind): wins/draws/losses = games table" \
        "$(sql "SELECT wins || '/' || draws || '/' || losses FROM runs WHERE id = $run")" \
        "$(sql "SELECT sum(outcome = 'win') || '/' || sum(outcome = 'draw') || '/' || sum(outcome = 'loss') FROM games WHERE run_id = $run")"
    check "run $run ($kind): pentanomial pairs = pairs" \
        "$(sql "SELECT ll + ld + dd_wl + wd + ww FROM runs WHERE id = $run")" "$pairs"
    check "run $run ($kind): pairs of acknowledged reports = pairs" \
        "$(sql "SELECT sum(pairs) FROM results WHERE run_id = $run")" "$pairs"
done
check "fixed run: games" "$(sql "SELECT 2 * pairs_done FROM runs WHERE id = 1")" "$fixed_games"
check "SPRT run: decided" "$(sql "SELECT state || ': ' || result FROM runs WHERE id = 2" | sed 's/H[01] accepted/decided/')" "finished: decided"
check "SPSA run: pairs applied = pairs played" \
    "$(sql "SELECT pairs_applied FROM spsa_runs WHERE run_id = 3")" "$((tune_games / 2))"
check "SPSA run: trajectory ends at the pairs applied" \
    "$(sql "SELECT max(pairs) FROM spsa_history WHERE run_id = 3")" "$((tune_games / 2))"
check "generation run: games with positions, each once" \
    "$(sql "SELECT count(*) || ' ' || count(DISTINCT game) || ' ' || min(game) || ' ' || max(game) FROM training_positions WHERE run_id = 4")" \
    "$generate_games $generate_games 0 $((generate_games - 1))"
check "generation run: positions stored = positions counted" \
    "$(sql "SELECT sum(count) FROM training_positions WHERE run_id = 4")" \
    "$(sql "SELECT positions FROM generate_runs WHERE run_id = 4")"
games=$(sql "SELECT count(*) FROM games WHERE run_id <= 3")
generated=$(sql "SELECT count(*) FROM training_positions WHERE run_id = 4")
sprt=$(sql "SELECT result || ' after ' || (2 * pairs_done) || ' games' FROM runs WHERE id = 2")
echo "chaos: $coordinator_kills coordinator kills (SIGKILL, $starts starts), $worker_kills worker kills;" \
    "$games games ($during stored during the kills) and $generated generated games checked;" \
    "SPRT $sprt; ${elapsed} s"
echo "chaos: expired leases $(sql "SELECT count(*) FROM batches WHERE state = 'expired'")," \
    "leases $(sql "SELECT count(*) FROM batches")"
[ "$failures" -eq 0 ] || { echo "chaos: FAILED: $failures checks" >&2; exit 1; }
echo "chaos: ok"
