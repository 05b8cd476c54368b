#!/bin/bash
# Games per second of `sparring match` at a fixed node count: the built-in engine against
# itself in-process, then the same engine through the UCI path (two sparring-engine
# processes per game), with the same book, openings and concurrency. The two runs play the
# same games (fixed nodes are deterministic), which the script checks by their ply counts.
# CPU seconds (user + system, engine processes included) are shown too: on a shared machine
# they vary less than the wall time. NODES may be a comma-separated list (100,1000,3000):
# each node count is measured in turn and a table of the ratios ends the output.
# Usage: bench/match_throughput.sh [BUILD_DIR] [PAIRS] [NODES] [CONCURRENCY] [ROUNDS]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build}")
pairs=${2:-100}
node_list=${3:-1000}
concurrency=${4:-2}
rounds=${5:-3}
sparring=$build/cli/sparring
engine=$build/engine/sparring-engine
for binary in "$sparring" "$engine"; do
    [ -x "$binary" ] || { echo "missing $binary: build first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the value of an arithmetic expression (awk is on every Debian system).
calc() { awk "BEGIN { print $1 }"; }

# Plays one match and prints "WALL CPU" in seconds; the PGN goes to $work/LABEL.pgn.
play() {
    local label=$1
    shift
    rm -f "$work/$label.pgn"
    local TIMEFORMAT='%R %U %S'
    { time "$sparring" match --tc "nodes=$nodes" --concurrency "$concurrency" --pairs "$pairs" \
        --book-order sequential --pgn-out "$work/$label.pgn" "$@" \
        > "$work/$label.txt" 2> /dev/null; } 2> "$work/$label.time"
    read -r wall user sys < "$work/$label.time"
    echo "$wall $(calc "$user + $sys")"
}

# Prints the total plies of a PGN file.
plies() { grep -o 'PlyCount "[0-9]*"' "$1" | grep -o '[0-9]*' | awk '{ s += $1 } END { print s }'; }

games=$((2 * pairs))
summary=""
for nodes in ${node_list//,/ }; do
    echo "sparring match: $games games at nodes=$nodes, concurrency $concurrency, $rounds rounds"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
         "load average $(cut -d' ' -f1-3 /proc/loadavg)"
    best_in=""
    best_uci=""
    cpu_in_total=0
    cpu_uci_total=0
    for round in $(seq "$rounds"); do
        read -r wall_in cpu_in < <(play inproc builtin builtin)
        read -r wall_uci cpu_uci < <(play uci "cmd=$engine,name=uci-a" "cmd=$engine,name=uci-b")
        if [ "$(plies "$work/inproc.pgn")" != "$(plies "$work/uci.pgn")" ]; then
            echo "the two paths played different games: the comparison is void" >&2
            exit 1
        fi
        printf 'round %d: in-process %6.2f s wall %6.2f s CPU (%6.1f games/s)' \
            "$round" "$wall_in" "$cpu_in" "$(calc "$games / $wall_in")"
        printf '   UCI %6.2f s wall %6.2f s CPU (%6.1f games/s)\n' \
            "$wall_uci" "$cpu_uci" "$(calc "$games / $wall_uci")"
        if [ -z "$best_in" ] || [ "$(calc "$wall_in < $best_in")" = 1 ]; then best_in=$wall_in; fi
        if [ -z "$best_uci" ] || [ "$(calc "$wall_uci < $best_uci")" = 1 ]; then best_uci=$wall_uci; fi
        cpu_in_total=$(calc "$cpu_in_total + $cpu_in")
        cpu_uci_total=$(calc "$cpu_uci_total + $cpu_uci")
    done
    plies_run=$(plies "$work/inproc.pgn")
    echo "plies per run: $plies_run (the same games on both paths)"
    printf 'best in-process: %.1f games/s\n' "$(calc "$games / $best_in")"
    printf 'best UCI path:   %.1f games/s\n' "$(calc "$games / $best_uci")"
    printf 'ratio in-process / UCI (wall, best rounds): %.2f\n' "$(calc "$best_uci / $best_in")"
    summary+=$(printf '| %d | %.1f | %.1f | %.2f | %.0f | %.0f | %.2f |' "$nodes" \
        "$(calc "$games / $best_in")" "$(calc "$games / $best_uci")" "$(calc "$best_uci / $best_in")" \
        "$(calc "1e6 * $cpu_in_total / ($rounds * $plies_run)")" \
        "$(calc "1e6 * $cpu_uci_total / ($rounds * $plies_run)")" \
        "$(calc "$cpu_uci_total / $cpu_in_total")")$'\n'
done
if [ "$(wc -w <<< "${node_list//,/ }")" -gt 1 ]; then
    echo
    echo "| nodes | in-process games/s | UCI games/s | wall ratio | in-process CPU µs/move | UCI CPU µs/move | CPU ratio |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf '%s' "$summary"
fi
