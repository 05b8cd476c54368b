#!/usr/bin/env bash
# Runs the benchmarks whose results are in BENCHMARKS.md, one after the other, each against
# its peer in the same run. The strength gauntlet takes hours and runs only with GAUNTLET=1;
# the training benchmark (a million positions, about 40 CPU-minutes) only with TRAINING=1.
#   bench/run_all.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(realpath "${1:?usage: run_all.sh BUILD_DIR}")

echo "== perft vs Stockfish 15.1"
python3 "$here/perft_vs_stockfish.py" "$build" --rounds 3
echo "== tactical suite vs Stockfish 15.1 (1 s per position)"
python3 "$here/tactics.py" --engine "$build/engine/sparring-engine" --movetime 1000
echo "== search speed vs Debian's engines (nodes/second, 1 s a position)"
python3 "$here/search_speed.py" "$build"
echo "== match throughput: in-process vs UCI at 300 and 1,000 nodes a move"
"$here/match_throughput.sh" "$build" 100 300,1000 2 1
echo "== coordinator load: 1,000 and 10,000 simulated workers"
"$here/loadgen.sh" "$build"
echo "== database growth per game"
"$here/db_size.sh" "$build"
echo "== chaos: 20 SIGKILLs of the coordinator and random worker kills during four runs"
nice -n 19 "$here/chaos.sh" "$build" 20 3
echo "== real containers: the image built with podman, a run played through three containers"
status=0
nice -n 19 "$here/../deploy/container-check.sh" || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"
if [ "${GAUNTLET:-0}" = 1 ]; then
    echo "== strength gauntlet at 5 s + 0.05 s"
    "$here/gauntlet.sh" "$build"
fi
if [ "${TRAINING:-0}" = 1 ]; then
    echo "== training: a million self-play positions, trained on the service, verified vs default"
    data=$(mktemp -d "${TMPDIR:-/tmp}/sparring-train-data.XXXXXX")
    "$build/cli/sparring" positions generate --games 13500 --nodes 2500 --seed 11 \
        --out "$data/gen1m.epd"
    "$build/cli/sparring" positions generate --games 1600 --nodes 2500 --seed 12 \
        --out "$data/gen1m-b.epd"
    "$here/train_service.sh" "$build" "$data/gen1m.epd,$data/gen1m-b.epd" 200 1000 5000 2
fi
