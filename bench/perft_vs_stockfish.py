#!/usr/bin/env python3
"""Perft speed of sparring-engine against Stockfish 15.1, single thread, same machine.

Usage: bench/perft_vs_stockfish.py BUILD_DIR [--rounds N] [--stockfish PATH]

Runs the start position at depth 6 and Kiwipete at depth 5 on both engines, alternating
engines and positions for N rounds, and prints a Markdown table of median nodes/second and
the ratio ours/Stockfish. Process start-up is excluded on both sides: our time is the one
sparring-engine prints (measured around the perft call itself); Stockfish runs as one UCI
process and is timed from sending `go perft` to reading its `Nodes searched` line.
"""

import argparse
import math
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from uci_engine import UciEngine

POSITIONS = [
    ("start position", None, 6),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
]


def stockfish_perft(stockfish, fen, depth):
    """Returns (nodes, seconds) of one `go perft`, start-up and set-up excluded."""
    stockfish.send("position startpos" if fen is None else f"position fen {fen}")
    stockfish.sync()
    start = time.perf_counter()
    stockfish.send(f"go perft {depth}")
    line = stockfish.wait_for("Nodes searched:", 600)[-1]
    seconds = time.perf_counter() - start
    return int(line.split(":")[1]), seconds


def ours(engine, fen, depth):
    """Returns (nodes, seconds) from one `sparring-engine perft` run, as it reports them."""
    command = [str(engine), "perft", str(depth)] + ([] if fen is None else [fen])
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    nodes = int(re.search(r"^Nodes searched: (\d+)$", output, re.M).group(1))
    nps = int(re.search(r"^Time: \d+ ms, (\d+) nodes/second$", output, re.M).group(1))
    return nodes, nodes / nps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    engine = args.build_dir / "engine" / "sparring-engine"
    if not engine.is_file():
        parser.error(f"{engine} does not exist; build the sparring-engine target first")

    stockfish = UciEngine([args.stockfish], {"Threads": 1})
    rates = {(name, who): [] for name, _, _ in POSITIONS for who in ("ours", "stockfish")}
    nodes_of = {}
    for round_index in range(args.rounds):
        for name, fen, depth in POSITIONS:
            # Alternate which engine goes first, so neither always runs on a warmer machine.
            order = ("ours", "stockfish") if round_index % 2 == 0 else ("stockfish", "ours")
            for who in order:
                nodes, seconds = (ours(engine, fen, depth) if who == "ours"
                                 else stockfish_perft(stockfish, fen, depth))
                if nodes_of.setdefault(name, nodes) != nodes:
                    sys.exit(f"{name}: node counts differ ({nodes_of[name]} vs {nodes})")
                rates[(name, who)].append(nodes / seconds)
        print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr)
    stockfish.close()

    print(f"{args.rounds} rounds, medians, single thread\n")
    print("| position | depth | nodes | sparring-engine (Mnps) | Stockfish 15.1 (Mnps) | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    for name, _, depth in POSITIONS:
        ours_nps = statistics.median(rates[(name, "ours")])
        theirs_nps = statistics.median(rates[(name, "stockfish")])
        ratios.append(ours_nps / theirs_nps)
        print(f"| {name} | {depth} | {nodes_of[name]} | {ours_nps / 1e6:.0f} | "
              f"{theirs_nps / 1e6:.0f} | {ratios[-1]:.2f} |")
    geometric = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\nratio ours/Stockfish (geometric mean over the positions): {geometric:.2f}")


if __name__ == "__main__":
    main()
