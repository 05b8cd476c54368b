#!/bin/bash
# Where a game's time goes at a fixed node count, and how close `sparring match` comes to the
# search-bound rate (issue 53, item 5). Two parts, one run:
#  1. sparring-bench-game-cost: the engine's bench speed (nodes per CPU second), then PAIRS
#     pairs of the shipped book in sequential order played on one thread with a CPU clock
#     around each part of a game (engine set-up, new_game, search, the runner's rules and
#     adjudication, PGN), in-process and then through the UCI path (two sparring-engine
#     processes, whose CPU the kernel reports once they quit); the two paths must play the
#     same games.
#  2. bench/match_throughput.sh: the same games with `sparring match` at CONCURRENCY, in-process
#     and through the UCI path, wall and CPU seconds (fastchess is not packaged in Debian 12:
#     the UCI path, two engine processes per game, is the peer).
# The search-bound limit is the bench's nodes per second over the mean nodes per game: at it a
# game costs its search and nothing else. The fraction of it is given on CPU time (steady on
# a shared machine) and on wall time (CONCURRENCY games at once on as many cores).
# Usage: bench/game_cost.sh [BUILD_DIR] [PAIRS] [NODES] [CONCURRENCY] [ROUNDS]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
pairs=${2:-100}
nodes=${3:-1000}
concurrency=${4:-2}
rounds=${5:-1}
cost=$build/bench/sparring-bench-game-cost
[ -x "$cost" ] || { echo "missing $cost: build sparring-bench-game-cost first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

calc() { awk "BEGIN { print $1 }"; }
key() { sed -n "s/^key $1=//p" "$work/cost.txt"; }

echo "== 1. CPU per game by part, one thread ($((2 * pairs)) games at nodes=$nodes)"
"$cost" --pairs "$pairs" --nodes "$nodes" --engine "$build/engine/sparring-engine" \
    | tee "$work/cost.txt" | grep -v '^key '
echo
echo "== 2. sparring match at concurrency $concurrency, in-process vs the UCI path"
bash "$root/bench/match_throughput.sh" "$build" "$pairs" "$nodes" "$concurrency" "$rounds" \
    | tee "$work/match.txt"

nps=$(key bench_nps)
per_game=$(key nodes_per_game)
games=$((2 * pairs))
# Best in-process round (wall) and the mean CPU of the rounds, from match_throughput's lines.
# Best wall time per path and mean CPU of the rounds, from match_throughput's round lines
# ("round 1: in-process W s wall C s CPU (...)   UCI W s wall C s CPU (...)").
read -r wall_in cpu_in wall_uci cpu_uci < <(grep '^round' "$work/match.txt" \
    | sed -E 's/.*in-process +([0-9.]+) s wall +([0-9.]+) s CPU.*UCI +([0-9.]+) s wall +([0-9.]+) s CPU.*/\1 \2 \3 \4/' \
    | awk '{ n++; ci += $2; cu += $4
             if (!wi || $1 < wi) wi = $1
             if (!wu || $3 < wu) wu = $3 } END { print wi, ci / n, wu, cu / n }')
limit_cpu=$(calc "$nps / $per_game")
echo
echo "== summary (nodes=$nodes, $games games, one run)"
printf 'search-bound limit: %.0f nodes/s / %.0f nodes per game = %.1f games per CPU second\n' \
    "$nps" "$per_game" "$limit_cpu"
printf 'CPU per game in-process, one thread (part 1): %.0f µs, at bench speed %.0f µs\n' \
    "$(key in_cpu_per_game_us)" "$(key in_search_bound_us)"
printf '  of which new_game %.0f µs, runner %.0f µs, PGN %.0f µs, set-up %.0f µs (a new engine per side and game would add %.0f µs)\n' \
    "$(key in_new_game_us)" "$(key in_runner_us)" "$(key in_pgn_us)" "$(key in_setup_us)" \
    "$(key fresh_engines_us)"
printf 'fraction of the search-bound limit, CPU, one thread:        %.2f\n' "$(key fraction)"
printf 'fraction of the search-bound limit, CPU, sparring match:    %.2f (%.2f s CPU for %d games)\n' \
    "$(calc "$games * $per_game / $nps / $cpu_in")" "$cpu_in" "$games"
printf 'fraction of the search-bound limit, wall, %d games at once: %.2f (%.1f games/s against %.1f)\n' \
    "$concurrency" "$(calc "($games / $wall_in) / ($concurrency * $limit_cpu)")" \
    "$(calc "$games / $wall_in")" "$(calc "$concurrency * $limit_cpu")"
printf 'in-process / UCI path: wall %.2f, CPU %.2f (sparring match); CPU %.2f (one thread)\n' \
    "$(calc "$wall_uci / $wall_in")" "$(calc "$cpu_uci / $cpu_in")" "$(key cpu_ratio)"
