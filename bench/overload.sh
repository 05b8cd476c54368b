#!/usr/bin/env bash
# Overload of the coordinator (BENCHMARKS.md, "Overload"). First its ceiling: sparring-loadgen
# offering far more than it can take to a coordinator without any bound (--max-queued-calls 0
# --max-queue-wait-ms 0), so that every worker's call waits its turn and the writer's batches
# are as large as they get: the most reports per second it acknowledges. (With 1,000 simulated
# workers at most 1,000 calls wait, far within their deadline; with many more, every call would
# end in its deadline and no ceiling could be read.) Then twice that ceiling offered to
#   - the default admission (64 queued calls; reports before leases; retry hints),
#   - the bound by expected wait (--max-queued-calls 512 --max-queue-wait-ms 40),
#   - no bound,
#   - and, if SPARRING_OVERLOAD_PEER names another build directory, that build's coordinator
#     with its own defaults (a before/after in the same run).
# Each on a fresh SQLite file on 127.0.0.1. It prints, for each, the offered rate, the goodput
# (acknowledged reports/s, its share of the ceiling and of no bound at the same rate), the
# accepted calls' p99 and the share shed; the load generator checks every database (nothing
# lost, nothing counted twice).
#   bench/overload.sh [BUILD_DIR] [extra sparring-loadgen flags]
#   SPARRING_OVERLOAD_WORKERS (1000), SPARRING_OVERLOAD_PEER (none)
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
shift || true
workers=${SPARRING_OVERLOAD_WORKERS:-1000}
peer=${SPARRING_OVERLOAD_PEER:-}
work=$(mktemp -d)
coordinator=
trap 'kill "$coordinator" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
loadgen="$build/bench/sparring-loadgen"

# Runs sparring-loadgen at a rate against a fresh coordinator (the given binary, started with
# the given flags); prints its report (and keeps it in $work/last).
load() {
    local tool=$1 rate=$2
    shift 2
    rm -rf "$work"/load.db* "$work/port" "$work/engines"
    local user worker
    user=$("$tool" token create --db "$work/load.db" --role user 2>/dev/null)
    worker=$("$tool" token create --db "$work/load.db" --role worker 2>/dev/null)
    "$tool" serve --db "$work/load.db" --listen 127.0.0.1:0 --port-file "$work/port" "$@" \
        2>"$work/coordinator.log" &
    coordinator=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    "$loadgen" --coordinator "127.0.0.1:$(cat "$work/port")" \
        --user-token "$user" --worker-token "$worker" --db "$work/load.db" \
        --workers "$workers" --rate "$rate" "${extra[@]}" | tee "$work/last"
    kill "$coordinator"
    wait "$coordinator" || true
}

# The figures of the last load.
reports() { sed -n 's/^reports: *\([0-9]*\)\/s.*/\1/p' "$work/last"; }
p99() { sed -n "s/^$1 latency: *p50 [0-9.]* ms, p99 \([0-9.]*\) ms.*/\1/p" "$work/last"; }
shed() { sed -n 's/^shed: *\([0-9.]*\)%.*/\1/p' "$work/last"; }

extra=("$@")
tool="$build/coordinator/sparring-coordinator"
echo "== ceiling: $workers workers offering 20000 reports/s, no bound"
load "$tool" 20000 --max-queued-calls 0 --max-queue-wait-ms 0
ceiling=$(reports)
echo "ceiling: $ceiling reports/s"
[ "${ceiling:-0}" -gt 0 ] || { echo "overload.sh: no ceiling could be read" >&2; exit 1; }
offered=$((2 * ceiling))
names=()
lines=()
goodputs=()
# Runs one load at twice the ceiling and keeps its figures for the summary.
twice() {
    local name=$1 binary=$2
    shift 2
    echo "== twice the ceiling: $offered reports/s offered, $name"
    load "$binary" "$offered" "$@"
    names+=("$name")
    goodputs+=("$(reports)")
    lines+=("accepted p99: reports $(p99 report) ms, leases $(p99 lease) ms; shed $(shed)%")
}
twice "default admission" "$tool"
twice "wait bound (512 queued, 40 ms)" "$tool" --max-queued-calls 512 --max-queue-wait-ms 40
twice "no bound" "$tool" --max-queued-calls 0 --max-queue-wait-ms 0
unbounded=${goodputs[2]}
if [ -n "$peer" ]; then
    twice "peer build $peer, its defaults" "$peer/coordinator/sparring-coordinator"
fi
echo "== summary: ceiling $ceiling reports/s ($workers workers, no bound, 20000/s offered);" \
    "$offered reports/s offered to each"
for i in "${!names[@]}"; do
    printf '%-46s goodput %5d/s = %3d%% of the ceiling, %3d%% of no bound at this rate; %s\n' \
        "${names[$i]}" "${goodputs[$i]}" $((100 * goodputs[i] / ceiling)) \
        $((100 * goodputs[i] / (unbounded > 0 ? unbounded : 1))) "${lines[$i]}"
done
