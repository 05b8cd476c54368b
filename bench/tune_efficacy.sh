#!/bin/bash
# Does tuning end somewhere sensible? The built-in engine's 10 piece values (the Material
# group), tuned with SPSA through the service from the `seed` preset on two local workers, the
# result being the average of the last part of the trajectory (--average), then measured with
# fixed numbers of games from a book seed other than the tuning run's -- not an SPRT-stopped
# estimate: against `seed` (the run's own fixed-games verification, --verify-fixed
# --verify-seed) and against the hand-set `default`. Target (issue 29): at least +45 Elo
# against `seed` with the interval's lower bound above +30, and not below `default`.
#
# Those two measurements play the openings the tuning played, in another order. A third plays
# the tuned values against `seed` on openings the tuning never saw (a second generated book,
# FRESH_BOOK_SEED, without the tuning book's positions): the figure to read for values meant
# for games beyond the benchmark's book.
#
# Every game is played out (--draw off --resign off: the tuning, its verification and the
# measurement against `default`). Adjudication reads the engines' own evaluations, and these
# are what the piece values change: an engine that misjudges material agrees to a draw or
# resigns on its misjudgement, which shrinks the differences being measured. The issue's
# figure for `default` (+36 against `seed`) is what games played out give here; adjudicated
# they give +28 (BENCHMARKS.md). PLAY_OUT=0 keeps the service's default adjudication instead.
#
# The games are played from a book generated for the run (`sparring book generate`, BOOK_SEED)
# with one opening for each pair of a measurement: at nodes=N a game is decided by its opening
# and its engines, so a measurement of more pairs than its book has openings replays games
# already played and its interval is narrower than its evidence. Runs 1-10 in BENCHMARKS.md
# used the shipped book of then 1,200 openings, and their 8,000-game measurements replayed every
# opening three or four times.
#
# With ENGINE=uploaded the same is done with the engine as a user would bring it: the build's
# `sparring-engine` uploaded as an engine file (`seed` is that file with the seed preset's
# piece values as UCI options, `default` the file as it is), the workers fetching it and playing
# it over UCI, and the run tuning its spin options -- the same parameters, book, seeds and
# games as the in-process run, so the two must end within noise of each other (issue 29,
# item 4).
#
# Usage: bench/tune_efficacy.sh
# Environment:
#   BUILD_DIR    a build of this repository (default: build/)
#   ENGINE       builtin (default: the workers play the engine in-process) or uploaded
#   SEED         the tuning run's book seed (default 1), VERIFY_SEED the measurements' (default 2)
#   GAMES        tuning games (default 44000), NODES per move (default 1000),
#   PARAMS_FILE  the parameters in the OpenBench/fishtest format (`NAME, int, START, MIN, MAX,
#                C_END, R_END` a line; default bench/tune_efficacy.params: the piece values from
#                `seed`, r_end 0.005, c_end a tenth of each range); empty: the Material group
#                with R_END (default 0.005) and C_END (default: the service's, a twentieth of
#                each range) for every value,
#   AVERAGE      the averaged last fraction of the pairs (default 0.4),
#   CHECK_GAMES  games of each fixed-games measurement (default 8000),
#   BOOK_SEED    seed of the generated book of CHECK_GAMES/2 openings (default 21),
#   FRESH_BOOK_SEED  seed of the book of the third measurement (default 23; must differ from
#                BOOK_SEED),
#   PLAY_OUT     1 (default): every game played out; 0: the service's default adjudication,
#   CONCURRENCY  games at once per worker (default 1), WORK_DIR (default a new temporary
#                directory; database and logs stay there)
# Prints the tuning run (start, last and reported value of each piece value), each
# measurement's Elo with its 95% interval, and the wall time of each part.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 0 ] || { echo "usage: bench/tune_efficacy.sh (settings in the environment; see --help)" >&2; exit 2; }
build=$(realpath "${BUILD_DIR:-$root/build}")
games=${GAMES:-44000}
nodes=${NODES:-1000}
r_end=${R_END:-0.005}
c_end=${C_END:-}
average=${AVERAGE:-0.4}
check_games=${CHECK_GAMES:-8000}
book_seed=${BOOK_SEED:-21}
fresh_book_seed=${FRESH_BOOK_SEED:-23}
engine_kind=${ENGINE:-builtin}
seed=${SEED:-1}
verify_seed=${VERIFY_SEED:-2}
case $engine_kind in builtin | uploaded) ;; *) echo "ENGINE must be builtin or uploaded" >&2; exit 2 ;; esac
[ "$seed" != "$verify_seed" ] || { echo "SEED and VERIFY_SEED must differ" >&2; exit 2; }
[ "$book_seed" != "$fresh_book_seed" ] || { echo "BOOK_SEED and FRESH_BOOK_SEED must differ" >&2; exit 2; }
concurrency=${CONCURRENCY:-1}
adjudication=() games_are="adjudicated by the service's default rules"
case ${PLAY_OUT:-1} in
    1) adjudication=(--draw off --resign off) games_are="played out" ;;
    0) ;;
    *) echo "PLAY_OUT must be 0 or 1" >&2; exit 2 ;;
esac
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-tune-efficacy.XXXXXX")}
mkdir -p "$work"
# shellcheck source=bench/local_cluster.sh
. "$root/bench/local_cluster.sh"
cluster_binaries "$build"

db="$work/tune.db"
start_local_coordinator "$coordinator" "$db" "$work"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
worker_flags=()
if [ "$engine_kind" = builtin ]; then
    "$cli" versions add seed --preset seed --description "piece values of the seed's type codes"
    "$cli" versions add default --preset default --description "the engine's hand-set values"
else
    engine="$build/engine/sparring-engine"
    # The seed preset's piece values, as the coordinator lists a built-in version's options.
    "$cli" versions add seed-builtin --preset seed --description "the seed preset, in-process"
    seed_values=$("$cli" versions options seed-builtin |
        awk '/^(Pawn|Knight|Bishop|Rook|Queen)Value(Mg|Eg) / { printf ",%s=%s", $1, $3 }')
    echo "seed piece values: ${seed_values#,}"
    "$cli" versions add seed --engine-file "$engine" --option "Hash=16$seed_values" \
        --description "$engine with the seed preset's piece values"
    "$cli" versions add default --engine-file "$engine" --option "Hash=16" \
        --description "$engine as it is"
fi
for n in 1 2; do
    [ "$engine_kind" = builtin ] || worker_flags=(--accept-uploaded-engines --cache-dir "$work/cache-$n")
    "$worker" --coordinator "$SPARRING_COORDINATOR" --token "$worker_token" --name "w$n" \
        --concurrency "$concurrency" "${worker_flags[@]}" >"$work/worker-$n.log" 2>&1 &
    pids+=($!)
done

started=$(date +%s)
book="$work/book.epd"
"$cli" book generate --out "$book" --positions "$((check_games / 2))" --seed "$book_seed"
# The third measurement's openings: another generated book, without the first one's positions.
fresh_book="$work/fresh-book.epd"
"$cli" book generate --out "$fresh_book" --positions "$((check_games / 2))" \
    --seed "$fresh_book_seed" --exclude "$book"
booked=$(date +%s)
params=(--params Material --r-end "$r_end")
[ -z "$c_end" ] || params+=(--c-end "$c_end")
params_file=${PARAMS_FILE-$root/bench/tune_efficacy.params}
[ -z "$params_file" ] || params=(--params-file "$(realpath "$params_file")")
submitted=$("$cli" submit tune seed "${params[@]}" --games "$games" --tc "nodes=$nodes" \
    --average "$average" --book "$book" --seed "$seed" "${adjudication[@]}" \
    --verify --verify-fixed --verify-games "$check_games" --verify-seed "$verify_seed" \
    --description "tune_efficacy.sh ($engine_kind): piece values from seed")
echo "$submitted"
run=$(echo "$submitted" | awk '{print $2}')
follow_run "$run" >"$work/tune.txt"
tuned_at=$(date +%s)
verify=$(sed -n 's/^verification: run \([0-9]*\),.*/\1/p' "$work/tune.txt")
[ -n "$verify" ] || { echo "the verification did not start; see $work" >&2; exit 1; }
tuned=$("$cli" show "$verify" | awk '/^test:/ { print $2 }')
submitted=$("$cli" submit "$tuned" default --kind fixed --games "$check_games" \
    --tc "nodes=$nodes" --book "$book" --seed "$verify_seed" "${adjudication[@]}" \
    --description "tune_efficacy.sh: $tuned vs default")
check=$(echo "$submitted" | awk '{print $2}')
submitted=$("$cli" submit "$tuned" seed --kind fixed --games "$check_games" \
    --tc "nodes=$nodes" --book "$fresh_book" --seed "$verify_seed" "${adjudication[@]}" \
    --description "tune_efficacy.sh: $tuned vs seed on openings the tuning never played")
fresh=$(echo "$submitted" | awk '{print $2}')
follow_run "$verify" >"$work/check-$verify.txt"
follow_run "$check" >"$work/check-$check.txt"
follow_run "$fresh" >"$work/check-$fresh.txt"
finished=$(date +%s)
"$cli" tune-history "$run" --csv >"$work/trajectory.csv"

echo
echo "tuning run $run ($engine_kind engine): $games games at nodes=$nodes," \
    "${params_file:-r_end $r_end, c_end ${c_end:-default}}, average of the last $average, book" \
    "seed $seed; measured with book seed $verify_seed; a book of $((check_games / 2))" \
    "openings (seed $book_seed); every game $games_are" \
    "(trajectory in $work/trajectory.csv):"
"$cli" show "$run" | sed -n '/^PARAMETER/,$p'
echo
for check_run in "$verify" "$check" "$fresh"; do
    where="the tuning's openings"
    [ "$check_run" != "$fresh" ] || where="openings the tuning never played, book seed $fresh_book_seed"
    awk -v games="$check_games" -v where="$where" '
        /^test:/ { test = $2 } /^base:/ { base = $2 }
        /^Elo:/ { $1 = ""; elo = substr($0, 2) }
        END { printf "%-16s vs %-8s %s games  Elo %s  (%s)\n", test, base, games, elo, where }' \
        "$work/check-$check_run.txt"
done
echo
echo "book $((booked - started)) s, tuning $((tuned_at - booked)) s, measurements $((finished - tuned_at)) s," \
    "in all $(((finished - started) / 60)) min $(((finished - started) % 60)) s"
