#!/usr/bin/env bash
# What adjudication saves and what it changes (BENCHMARKS.md, "Adjudication in service runs"):
# the same match of the built-in engine with default parameters against the `seed` preset is
# played at each time control from the same openings in the same order, once with every game
# played out ("off") and once with the service's default rules ("on", fishtest's: --draw
# movenumber=34,movecount=8,score=20 --resign movecount=3,score=400,twosided=true), the two
# arms alternating ROUNDS times (default 3) so that a drift of the shared machine hits both.
# Printed per time control: each arm's plies per game (from the PGN's PlyCount: the work saved,
# whatever the machine's load), its median wall time, games per second and Elo with its 95%
# interval (of the last round), the ratio of games per second, and the difference of the
# two Elo estimates.
#   bench/adjudication.sh BUILD_DIR [GAMES] [TC ...]     (defaults: 1000 games, nodes=1000 1+0.01)
# The workers play through the same match library (match/game.cpp) with the rules a lease
# carries, so the local runner measures what a service run saves.
set -euo pipefail
build=${1:?usage: bench/adjudication.sh BUILD_DIR [GAMES] [TC ...]}
games=${2:-1000}
shift $(( $# >= 2 ? 2 : $# ))
tcs=("$@")
[ ${#tcs[@]} -gt 0 ] || tcs=(nodes=1000 1+0.01)
rounds=${ROUNDS:-3}
sparring="$build/cli/sparring"
[ -x "$sparring" ] || { echo "no $sparring: build first" >&2; exit 2; }
rules=(--draw movenumber=34,movecount=8,score=20 --resign movecount=3,score=400,twosided=true)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Plays one arm; prints "seconds plies_per_game elo interval".
arm() {
    local tc=$1; shift
    local start end out pgn="$work/arm.pgn"
    rm -f "$pgn"
    start=$(date +%s.%N)
    out=$("$sparring" match builtin builtin:seed --games "$games" --tc "$tc" --concurrency 2 \
          --seed 7 --pgn-out "$pgn" "$@" 2>&1)
    end=$(date +%s.%N)
    local line
    line=$(grep -E "^ +Elo " <<<"$out" | tail -1)
    [ -n "$line" ] || { echo "no result line in:" >&2; echo "$out" >&2; exit 1; }
    local elo ci plies
    elo=$(sed -E 's/^ +Elo +([-+0-9.]+) \+- +([0-9.]+).*/\1/' <<<"$line")
    ci=$(sed -E 's/^ +Elo +([-+0-9.]+) \+- +([0-9.]+).*/\2/' <<<"$line")
    plies=$(awk -F'"' '/^\[PlyCount / { sum += $2; n++ } END { printf "%.1f", sum / n }' "$pgn")
    grep -E "^ +endings " <<<"$out" | sed "s/^ */  $tc ${*:-(no rules)}: /" >&2
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') $plies $elo $ci"
}

# Returns the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-10s %-4s %8s %9s %9s %18s\n' tc arm plies/g seconds games/s "Elo (95%)"
for tc in "${tcs[@]}"; do
    off_times=() on_times=()
    for ((r = 0; r < rounds; r++)); do
        read -r s off_plies off_elo off_ci < <(arm "$tc")
        off_times+=("$s")
        read -r s on_plies on_elo on_ci < <(arm "$tc" "${rules[@]}")
        on_times+=("$s")
    done
    off_s=$(median "${off_times[@]}")
    on_s=$(median "${on_times[@]}")
    awk -v tc="$tc" -v g="$games" -v os="$off_s" -v op="$off_plies" -v oe="$off_elo" \
        -v oc="$off_ci" -v ns="$on_s" -v np="$on_plies" -v ne="$on_elo" -v nc="$on_ci" 'BEGIN {
        printf "%-10s %-4s %8.1f %9.1f %9.2f %11s +- %4s\n", tc, "off", op, os, g / os, oe, oc
        printf "%-10s %-4s %8.1f %9.1f %9.2f %11s +- %4s\n", tc, "on", np, ns, g / ns, ne, nc
        printf "%-10s plies per game on / off %.2f; games/s on / off %.2fx; Elo difference %+.1f\n", \
            tc, np / op, os / ns, ne - oe }'
    echo "$tc wall times off: ${off_times[*]}; on: ${on_times[*]}"
done
