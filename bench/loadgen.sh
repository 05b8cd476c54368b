#!/usr/bin/env bash
# Load test of the coordinator (BENCHMARKS.md): a coordinator on a fresh SQLite file on
# 127.0.0.1, then sparring-loadgen with 1,000 and with 10,000 simulated workers.
#   bench/loadgen.sh [BUILD_DIR] [extra sparring-loadgen flags]
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
shift || true
work=$(mktemp -d)
trap 'kill "$coordinator" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tool="$build/coordinator/sparring-coordinator"
user=$("$tool" token create --db "$work/load.db" --role user)
worker=$("$tool" token create --db "$work/load.db" --role worker)
# One worker token stands for all 10,000 simulated workers: the per-token caps (1,000 workers
# and leases by default) are raised to let it.
"$tool" serve --db "$work/load.db" --listen 127.0.0.1:0 --port-file "$work/port" \
    --max-workers-per-token 20000 --max-leases-per-token 20000 2>"$work/coordinator.log" &
coordinator=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
address=127.0.0.1:$(cat "$work/port")
for workers in 1000 10000; do
    echo "== $workers simulated workers"
    "$build/bench/sparring-loadgen" --coordinator "$address" --user-token "$user" \
        --worker-token "$worker" --db "$work/load.db" --workers "$workers" "$@"
done
