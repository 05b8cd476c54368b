#!/bin/bash
# Regression test between two builds of the engine on a (local) cluster, start to finish:
# builds sparring-engine at two commits of this repository (each in a temporary directory
# of its own, only the engine target), uploads both builds to a new coordinator on
# 127.0.0.1 as versions (with their bench signatures), and runs an SPRT of the build at
# REV_B against the build at REV_A with two workers that hold neither file before: they
# fetch, verify and cache the builds themselves (--accept-uploaded-engines).
#
# Usage: bench/regression_builds.sh REV_A REV_B
#   REV_A      the base commit (anything `git rev-parse` takes: HEAD~3, a tag, a hash)
#   REV_B      the commit under test
# Environment:
#   BUILD_DIR  a build of the current tree whose coordinator, worker and CLI run the test
#              (default: build/ of this repository)
#   PATCH_A, PATCH_B  a patch applied (patch -p1) to that side's tree before it is built,
#                     e.g. PATCH_A=bench/patches/no_null_move.patch weakens REV_A's search
#   TC (default nodes=2000), ELO0/ELO1 (default 0/10), GAMES most games (default 4000),
#   CONCURRENCY games at once per worker (default 1), WORK_DIR (default a new temporary
#   directory; builds, database, caches and logs stay there)
# Prints the uploads, each worker's fetches, and the run's `show` when the SPRT decides.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$(realpath "${BUILD_DIR:-$root/build}")
rev_a=$1
rev_b=$2
tc=${TC:-nodes=2000}
games=${GAMES:-4000}
concurrency=${CONCURRENCY:-1}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-builds.XXXXXX")}
mkdir -p "$work"
coordinator="$build/coordinator/sparring-coordinator"
worker="$build/worker/sparring-worker"
cli="$build/cli/sparring"
for binary in "$coordinator" "$worker" "$cli"; do
    [ -x "$binary" ] || { echo "missing $binary: build first" >&2; exit 1; }
done

# Builds sparring-engine at commit $2 (with patch $3, if any) in $work/$1; prints its path.
build_engine() {
    local side=$1 rev=$2 patch=$3 commit
    commit=$(git -C "$root" rev-parse --verify "$rev^{commit}")
    rm -rf "$work/src-$side" "$work/build-$side"
    mkdir -p "$work/src-$side"
    git -C "$root" archive "$commit" | tar -x -C "$work/src-$side"
    if [ -n "$patch" ]; then patch -s -p1 -d "$work/src-$side" <"$(realpath "$patch")"; fi
    cmake -S "$work/src-$side" -B "$work/build-$side" -DCMAKE_BUILD_TYPE=Release \
        >"$work/build-$side.log" 2>&1
    cmake --build "$work/build-$side" -j2 --target sparring-engine >>"$work/build-$side.log" 2>&1 ||
        { tail -20 "$work/build-$side.log" >&2; exit 1; }
    echo "built $rev (${commit:0:12})${patch:+ with $patch}" >&2
    echo "$work/build-$side/engine/sparring-engine"
}

# Prints the bench signature of an engine binary.
bench_of() { "$1" bench | awk '/^Nodes searched/ { print $3 }'; }

engine_a=$(build_engine a "$rev_a" "${PATCH_A:-}")
engine_b=$(build_engine b "$rev_b" "${PATCH_B:-}")

db="$work/builds.db"
# shellcheck source=bench/local_cluster.sh
. "$root/bench/local_cluster.sh"
start_local_coordinator "$coordinator" "$db" "$work"

"$cli" versions add build-a --engine-file "$engine_a" --bench "$(bench_of "$engine_a")" \
    --description "sparring-engine at $rev_a${PATCH_A:+ + $PATCH_A}"
"$cli" versions add build-b --engine-file "$engine_b" --bench "$(bench_of "$engine_b")" \
    --description "sparring-engine at $rev_b${PATCH_B:+ + $PATCH_B}"
"$cli" versions list

for n in 1 2; do
    "$worker" --coordinator "$SPARRING_COORDINATOR" --token "$worker_token" --name "w$n" \
        --concurrency "$concurrency" --accept-uploaded-engines --cache-dir "$work/cache-$n" \
        >"$work/worker-$n.log" 2>&1 &
    pids+=($!)
done

start=$(date +%s)
submitted=$("$cli" submit build-b build-a --tc "$tc" --elo0 "${ELO0:-0}" --elo1 "${ELO1:-10}" \
    --games "$games" --description "regression_builds.sh $rev_b vs $rev_a")
echo "$submitted"
run=$(echo "$submitted" | awk '{print $2}')
while "$cli" show "$run" | grep -q '^state: *active'; do sleep 2; done
"$cli" show "$run"
echo "wall time: $(($(date +%s) - start)) s"
for n in 1 2; do
    echo "worker w$n:"
    grep -Eo 'downloading engine [^"]*|engine [0-9a-f]{12} (verified and cached|found in the cache)' \
        "$work/worker-$n.log" | sort | uniq -c
done
