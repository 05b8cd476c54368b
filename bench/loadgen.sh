#!/usr/bin/env bash
# Load test of the coordinator (BENCHMARKS.md): for each size, a coordinator on a fresh SQLite
# file on 127.0.0.1, then sparring-loadgen with that many simulated workers at 2,500 reports/s;
# a summary line per size at the end.
#   bench/loadgen.sh [BUILD_DIR] [--sizes N,N,...] [extra sparring-loadgen flags]
# Sizes default to 1000,10000,50000,100000. The warm-up (registration spread over its first
# half, then the first leases) grows with the size: 10 s plus 1 s per 1,000 workers, unless
# --warmup is among the extra flags. Each size's think time is workers / rate (20 s at 50,000),
# so leases live 5 minutes (--lease-seconds 300) for the largest sizes' slowest workers.
set -euo pipefail
build=$(cd "$(dirname "$0")/.." && pwd)/build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    build=$1
    shift
fi
sizes=1000,10000,50000,100000
extra=()
warmup_given=no
while [ $# -gt 0 ]; do
    case $1 in
        --sizes) sizes=$2; shift 2 ;;
        --sizes=*) sizes=${1#--sizes=}; shift ;;
        --warmup|--warmup=*) warmup_given=yes; extra+=("$1"); shift ;;
        *) extra+=("$1"); shift ;;
    esac
done
work=$(mktemp -d)
coordinator=
trap '[ -n "$coordinator" ] && kill "$coordinator" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tool="$build/coordinator/sparring-coordinator"
summary=()
status=0
for workers in ${sizes//,/ }; do
    db="$work/load-$workers.db"
    user=$("$tool" token create --db "$db" --role user)
    worker=$("$tool" token create --db "$db" --role worker)
    # One worker token stands for all the simulated workers: the per-token caps (1,000 workers
    # and leases by default) are raised to let it.
    rm -f "$work/port"
    "$tool" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" \
        --max-workers-per-token $((2 * workers)) --max-leases-per-token $((2 * workers)) \
        --lease-seconds 300 2>"$work/coordinator-$workers.log" &
    coordinator=$!
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    address=127.0.0.1:$(cat "$work/port")
    flags=(--rate 2500)
    [ $warmup_given = yes ] || flags+=(--warmup $((10 + workers / 1000)))
    echo "== $workers simulated workers (coordinator pid $coordinator)"
    out="$work/out-$workers"
    rc=0
    "$build/bench/sparring-loadgen" --coordinator "$address" --user-token "$user" \
        --worker-token "$worker" --db "$db" --workers "$workers" "${flags[@]}" "${extra[@]}" \
        | tee "$out" || rc=$?
    [ $rc -eq 0 ] || status=$rc
    kill "$coordinator" 2>/dev/null || true
    wait "$coordinator" 2>/dev/null || true
    coordinator=
    rate=$(sed -n 's/^reports: *\([0-9]*\)\/s.*/\1/p' "$out")
    p99=$(sed -n 's/^report latency:.*p99 \([0-9.]*\) ms.*/\1/p' "$out")
    shed=$(sed -n 's/^shed: *\([0-9.]*%\).*/\1/p' "$out")
    lost=$(grep -q 'nothing lost, nothing counted twice' "$out" && echo "nothing lost" || echo MISMATCH)
    summary+=("$(printf '%7s workers: %6s reports/s acknowledged, report p99 %8s ms, %6s shed, %s' \
        "$workers" "$rate" "$p99" "$shed" "$lost")")
done
echo "== summary (target at 50,000: >= 2,500 reports/s, p99 < 50 ms, < 5% shed, nothing lost)"
printf '%s\n' "${summary[@]}"
exit $status
