#!/usr/bin/env bash
# Builds the libFuzzer targets (the debug-sanitize preset: clang-14, ASan + UBSan, a build
# directory of its own) and runs each for SECONDS on its seed corpus, with the target's own
# flags from fuzz/options/TARGET, at the lowest CPU priority; prints the seconds, executions
# and executions per second of each target, and stops at the first target that fails.
#   bench/fuzz.sh [SECONDS] [TARGET ...]     (default: 60 seconds, every target)
# Environment: SPARRING_FUZZ_RUNS (stop each target after that many executions, or SECONDS,
# whichever comes first), SPARRING_FUZZ_NICE (the fuzzers' niceness, default 19),
# SPARRING_FUZZ_FORK (libFuzzer's fork mode with that many child processes, one per core:
# one fuzzing session over one corpus; its executions are the sum over the children),
# SPARRING_FUZZ_FLAGS (more libFuzzer flags for every target, split at spaces),
# SPARRING_FUZZ_BUILD_DIR (default build-asan, the preset's),
# SPARRING_JOBS (default 2).
# New inputs go to BUILD/fuzz/corpus/TARGET, crashes to BUILD/fuzz/crashes/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
build=${SPARRING_FUZZ_BUILD_DIR:-$root/build-asan}
targets=("$@")
runs_limit=()
[ -z "${SPARRING_FUZZ_RUNS:-}" ] || runs_limit=(-runs="$SPARRING_FUZZ_RUNS")
fork=()
extra=(${SPARRING_FUZZ_FLAGS:-})
[ -z "${SPARRING_FUZZ_FORK:-}" ] || fork=(-fork="$SPARRING_FUZZ_FORK")
if [ ${#targets[@]} -eq 0 ]; then
    targets=($(ls "$root/fuzz/corpus"))
fi

(cd "$root" && cmake --preset debug-sanitize -B "$build" >/dev/null)
nice -n 19 cmake --build "$build" -j "${SPARRING_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

printf '%-16s %8s %12s %10s %s\n' target seconds executions exec/s result
for target in "${targets[@]}"; do
    found=$build/fuzz/corpus/$target
    mkdir -p "$found" "$build/fuzz/crashes"
    log=$build/fuzz/$target.log
    status=0
    start=$(date +%s)
    options=()
    [ ! -f "$root/fuzz/options/$target" ] || mapfile -t options <"$root/fuzz/options/$target"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} nice -n "${SPARRING_FUZZ_NICE:-19}" "$build/fuzz/fuzz_$target" \
        "${options[@]}" "${fork[@]}" "${extra[@]}" -max_total_time="$seconds" "${runs_limit[@]}" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz/crashes/$target-" \
        "$found" "$root/fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    elapsed=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ ${#fork[@]} -gt 0 ]; then
        # Fork mode's own progress lines start with the executions so far; the only `stat::`
        # lines in its log are those of a child that was interrupted.
        runs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
        [ -z "$runs" ] || rate=$((runs / (elapsed > 0 ? elapsed : 1)))
    fi
    result=ok
    [ "$status" -eq 0 ] || result="FAILED (exit $status, see $log)"
    printf '%-16s %8s %12s %10s %s\n' "$target" "$elapsed" "${runs:-?}" "${rate:-?}" "$result"
    [ "$status" -eq 0 ] || exit "$status"
done
