#!/bin/bash
# Training through the service, end to end, on labelled positions made elsewhere (e.g. a
# million from `sparring positions generate`): a coordinator on 127.0.0.1 and one worker,
# `positions import` of the files, a training run on the coordinator (timed), the result
# made a version with `versions add --from-run`, then a fixed-games run of it against
# `default` played by the worker. Prints each step's `show` and the times.
#
# With chain=N in place of the files it runs the service's whole loop instead: one
# generation of `submit train --generations 1` (N self-play games of default at NODES nodes
# a move, seed 11, played by the worker), training on the coordinator, and the chain's SPRT
# verification against default (elo0 0, elo1 5, at most GAMES games, at NODES nodes too).
#
# Usage: bench/train_service.sh BUILD_DIR FILE[,FILE...]|chain=N [EPOCHS] [GAMES] [NODES] [CONCURRENCY]
#   EPOCHS       full-batch epochs of the training run (default 200)
#   GAMES        games of the verification against default (default 1000)
#   NODES        nodes a move in those games (default 5000)
#   CONCURRENCY  the worker's games at once (default 2)
# Environment: FILTER (default check,mate: self-play data is already filtered by the moves
# played), TRAIN_THREADS (default 2), WORK_DIR (default a new temporary directory; the
# database stays there).
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$(realpath "$1")
data=$2
epochs=${3:-200}
games=${4:-1000}
nodes=${5:-5000}
concurrency=${6:-2}
filter=${FILTER:-check,mate}
threads=${TRAIN_THREADS:-2}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-train.XXXXXX")}
mkdir -p "$work"
coordinator="$build/coordinator/sparring-coordinator"
worker="$build/worker/sparring-worker"
cli="$build/cli/sparring"
for binary in "$coordinator" "$worker" "$cli"; do
    [ -x "$binary" ] || { echo "missing $binary: build first" >&2; exit 1; }
done
db="$work/train.db"
rm -f "$db" "$db-wal" "$db-shm" "$work/port"
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT

user_token=$("$coordinator" token create --db "$db" --role user --name bench-user)
worker_token=$("$coordinator" token create --db "$db" --role worker --name bench-worker)
"$coordinator" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" \
    >"$work/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/coordinator.log" >&2; exit 1; }
export SPARRING_COORDINATOR="127.0.0.1:$(cat "$work/port")" SPARRING_TOKEN="$user_token"
echo "coordinator $SPARRING_COORDINATOR, database $db, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Prints the seconds since the epoch with a fraction.
now() { date +%s.%N; }
# Waits until run $1 is no longer active.
wait_run() {
    while "$cli" show "$1" | grep -q '^state: *active'; do sleep 2; done
}

# Starts the worker.
start_worker() {
    "$worker" --coordinator "$SPARRING_COORDINATOR" --token "$worker_token" \
        --concurrency "$concurrency" --name bench-worker >"$work/worker.log" 2>&1 &
    pids+=($!)
}

"$cli" versions add default --preset default --description "the built-in defaults"
if [[ $data == chain=* ]]; then
    start_worker
    start=$(now)
    submitted=$("$cli" submit train --version default --generations 1 --games "${data#chain=}" \
        --nodes "$nodes" --seed 11 --epochs "$epochs" --threads "$threads" \
        --verify-games "$games" --name chain \
        --description "bench: one generation on the service")
    echo "$submitted"
    chain_run=$(echo "$submitted" | awk '{print $2}')
    wait_run "$chain_run"
    echo "chain: $(awk "BEGIN { printf \"%.1f\", $(now) - $start }") s wall"
    "$cli" show "$chain_run"
    for run in $("$cli" show "$chain_run" | awk '$1 == "1" { print $3, $5, $8 }'); do
        "$cli" show "$run" | grep -v '^loss curve'
    done
    exit 0
fi
start=$(now)
imported=$("$cli" positions import "$data" --filter "$filter" --name "bench import")
echo "$imported"
data_run=$(echo "$imported" | grep -o 'run [0-9]*' | head -1 | awk '{print $2}')
echo "import: $(awk "BEGIN { printf \"%.1f\", $(now) - $start }") s wall"

start=$(now)
cpu_before=$(awk '{ print $14 + $15 }' "/proc/${pids[0]}/stat")
submitted=$("$cli" submit train --version default --data "$data_run" --epochs "$epochs" \
    --threads "$threads" --description "bench: train on imported positions")
echo "$submitted"
train_run=$(echo "$submitted" | awk '{print $2}')
wait_run "$train_run"
cpu_after=$(awk '{ print $14 + $15 }' "/proc/${pids[0]}/stat")
ticks=$(getconf CLK_TCK)
echo "training: $(awk "BEGIN { printf \"%.1f\", $(now) - $start }") s wall," \
    "$(awk "BEGIN { printf \"%.1f\", ($cpu_after - $cpu_before) / $ticks }") s coordinator CPU"
"$cli" show "$train_run" | grep -v '^loss curve'
"$cli" versions add trained --from-run "$train_run"

start_worker
start=$(now)
submitted=$("$cli" submit trained default --kind fixed --games "$games" --tc "nodes=$nodes" \
    --seed 1 --description "bench: trained vs default")
echo "$submitted"
match_run=$(echo "$submitted" | awk '{print $2}')
wait_run "$match_run"
echo "verification: $(awk "BEGIN { printf \"%.1f\", $(now) - $start }") s wall"
"$cli" show "$match_run"
