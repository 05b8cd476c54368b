#!/usr/bin/env bash
# The main job: shows the engine's perft (move-generation correctness and speed) and its
# bench signature. Called by `deploy/setup.sh demo` with the build directory.
set -euo pipefail
build=${1:?usage: demo.sh BUILD_DIR}
engine="$build/engine/sparring-engine"

echo "== perft 5 from the start position (4,865,609 nodes is the known count)"
"$engine" perft 5 | tail -n 3
echo
echo "== perft 4 of Kiwipete (4,085,603 nodes is the known count)"
"$engine" perft 4 "r3k2r/p1ppqpb1/bn2pnp1/3P4/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1" | tail -n 3
echo
echo "== bench: the engine's signature (Nodes searched) and speed"
"$engine" bench | tail -n 2
