#!/bin/bash
# Tuning an engine nobody here wrote, start to finish: Debian's Glaurung 2.2 exposes its
# evaluation weights as UCI spin options (default 100, range 0..200). This uploads it to a new
# coordinator on 127.0.0.1, adds a version with a few weights mis-set, tunes those weights with
# SPSA from the mis-set values on two workers (which fetch the upload themselves), adds the
# tuned version (`versions add --from-run`) and measures it with fixed-games runs -- not an
# SPRT-stopped estimate -- against the mis-set version and against Glaurung's defaults, with a
# book seed other than the tuning run's. A third fixed run measures the mis-set version
# against the defaults: the gap the tuning had to close.
#
# Usage: bench/tune_external.sh
# Environment:
#   BUILD_DIR   a build of this repository (default: build/)
#   ENGINE      the engine (default /usr/games/glaurung; `apt-get install glaurung`)
#   MISSET      the mis-set weights, NAME=VALUE;... (default: both passed-pawn weights,
#               Aggressiveness and Cowardice -- king safety, the opponent's and its own -- at 20
#               of Glaurung's 100)
#   TC          time control (default depth=4: Glaurung answers `bestmove (none)` now and then
#               under `go nodes`, and overruns short clocks)
#   GAMES       tuning games (default 6000), C_END (default 20), R_END (default 0.02),
#   AVERAGE     the tuning run's --average: the last fraction of its pairs whose values are
#               averaged into its result (default 0.4; 0 reports the last values)
#   CHECK_GAMES games of each fixed-games measurement (default 1500)
#   CONCURRENCY games at once per worker (default 1), WORK_DIR (default a new temporary
#               directory; database, caches and logs stay there)
# Prints the tuning run (start and tuned value of each weight), then each measurement's Elo
# with its 95% interval.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 0 ] || { echo "usage: bench/tune_external.sh (settings in the environment; see --help)" >&2; exit 2; }
build=$(realpath "${BUILD_DIR:-$root/build}")
engine=${ENGINE:-/usr/games/glaurung}
misset=${MISSET:-Passed Pawns (Middle Game)=20;Passed Pawns (Endgame)=20;Aggressiveness=20;Cowardice=20}
tc=${TC:-depth=4}
games=${GAMES:-6000}
c_end=${C_END:-20}
r_end=${R_END:-0.02}
average=${AVERAGE:-0.4}
check_games=${CHECK_GAMES:-1500}
concurrency=${CONCURRENCY:-1}
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-tune-external.XXXXXX")}
mkdir -p "$work"
# shellcheck source=bench/local_cluster.sh
. "$root/bench/local_cluster.sh"
cluster_binaries "$build"
[ -x "$engine" ] || { echo "missing $engine (apt-get install glaurung)" >&2; exit 1; }

# One thread, a small hash, no book of its own and no pondering, on every side.
fixed_options="Hash=16,OwnBook=false,Ponder=false"
params=()
misset_options=$fixed_options
IFS=';' read -r -a weights <<<"$misset"
for weight in "${weights[@]}"; do
    name=${weight%=*}
    value=${weight##*=}
    params+=(--param "$name:$value:::$c_end:$r_end")
    misset_options+=",$name=$value"
done

db="$work/tune.db"
start_local_coordinator "$coordinator" "$db" "$work"

echo "engine: $engine ($(printf 'uci\nquit\n' | "$engine" | awk '/^id name/ { $1 = $2 = ""; print substr($0, 3) }'))"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
"$cli" versions add default --engine-file "$engine" --option "$fixed_options" \
    --description "$engine with its own weights"
"$cli" versions add misset --engine-file "$engine" --option "$misset_options" \
    --description "$engine with $misset"

for n in 1 2; do
    "$worker" --coordinator "$SPARRING_COORDINATOR" --token "$worker_token" --name "w$n" \
        --concurrency "$concurrency" --accept-uploaded-engines --cache-dir "$work/cache-$n" \
        >"$work/worker-$n.log" 2>&1 &
    pids+=($!)
done


start=$(date +%s)
submitted=$("$cli" submit tune default "${params[@]}" --games "$games" --tc "$tc" --seed 1 \
    --average "$average" \
    --description "tune_external.sh: $misset back from the mis-set values")
echo "$submitted"
run=$(echo "$submitted" | awk '{print $2}')
follow_run "$run"
echo "tuning wall time: $(($(date +%s) - start)) s"
"$cli" tune-history "$run" --csv >"$work/trajectory.csv"
"$cli" versions add tuned --from-run "$run"

# Fixed-games measurements with book seed 2 (the tuning run played seed 1's order).
start=$(date +%s)
checks=()
for pair in "tuned misset" "tuned default" "misset default"; do
    read -r test base <<<"$pair"
    submitted=$("$cli" submit "$test" "$base" --kind fixed --games "$check_games" --tc "$tc" \
        --seed 2 --description "tune_external.sh: $test vs $base")
    checks+=("$(echo "$submitted" | awk '{print $2}')")
done
for check in "${checks[@]}"; do follow_run "$check" >"$work/check-$check.txt"; done
echo "measurement wall time: $(($(date +%s) - start)) s"
echo
echo "tuning run $run ($games games at $tc, c_end $c_end, r_end $r_end, average $average;" \
    "trajectory in $work/trajectory.csv):"
"$cli" show "$run" | sed -n '/^PARAMETER/,$p'
echo
for check in "${checks[@]}"; do
    awk -v games="$check_games" '
        /^test:/ { test = $2 } /^base:/ { base = $2 }
        /^Elo:/ { $1 = ""; elo = substr($0, 2) }
        END { printf "%-8s vs %-8s %s games  Elo %s\n", test, base, games, elo }' \
        "$work/check-$check.txt"
done
