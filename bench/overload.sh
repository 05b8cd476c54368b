#!/usr/bin/env bash
# Overload of the coordinator (BENCHMARKS.md, "Overload"): its ceiling first (sparring-loadgen
# offering far more than it can take; the reports it accepts per second), then twice that
# ceiling offered to a coordinator that sheds past --max-queued-calls (the default) and, as the
# peer in the same run, to one that does not (--max-queued-calls 0). Each on a fresh SQLite
# file on 127.0.0.1. (Without a bound, far past the ceiling, every call ends in its deadline:
# no ceiling can be read off such a run.)
#   bench/overload.sh [BUILD_DIR] [extra sparring-loadgen flags]
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
shift || true
workers=${SPARRING_OVERLOAD_WORKERS:-1000}
work=$(mktemp -d)
coordinator=
trap 'kill "$coordinator" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tool="$build/coordinator/sparring-coordinator"

# Runs sparring-loadgen at a rate against a fresh coordinator started with the given flags;
# prints its report (and keeps it in $work/last).
load() {
    local rate=$1
    shift
    rm -rf "$work"/load.db* "$work/port"
    local user worker
    user=$("$tool" token create --db "$work/load.db" --role user)
    worker=$("$tool" token create --db "$work/load.db" --role worker)
    "$tool" serve --db "$work/load.db" --listen 127.0.0.1:0 --port-file "$work/port" "$@" \
        2>"$work/coordinator.log" &
    coordinator=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    "$build/bench/sparring-loadgen" --coordinator "127.0.0.1:$(cat "$work/port")" \
        --user-token "$user" --worker-token "$worker" --db "$work/load.db" \
        --workers "$workers" --rate "$rate" "${extra[@]}" | tee "$work/last"
    kill "$coordinator"
    wait "$coordinator" || true
}

extra=("$@")
echo "== ceiling: $workers workers offering 20000 reports/s, --max-queued-calls 64 (the default)"
load 20000 --max-queued-calls 64
ceiling=$(sed -n 's/^reports: *\([0-9]*\)\/s.*/\1/p' "$work/last")
echo "ceiling: $ceiling reports/s"
for bound in 64 0; do
    echo "== twice the ceiling: $((2 * ceiling)) reports/s offered, --max-queued-calls $bound"
    load $((2 * ceiling)) --max-queued-calls "$bound"
done
