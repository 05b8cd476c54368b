#!/usr/bin/env python3
"""Search speed (nodes per second) of sparring-engine against Debian's UCI engines.

Usage: bench/search_speed.py BUILD_DIR [--movetime MS] [--rounds N] [--engine PATH ...]

Each engine runs as one UCI process with one thread and a 16 MB hash. For every position it
gets `ucinewgame`, the position and `go movetime MS`; the nodes and milliseconds of its last
`info` line before `bestmove` are summed per engine. Engines and positions alternate within
each round, so the machine's load falls on all of them alike. Prints a Markdown table of
nodes/second per engine and its ratio to sparring-engine's.

Every engine counts nodes its own way and evaluates differently (Stockfish 15.1 with NNUE),
so the ratio compares the cost of a node as each engine defines it, not playing strength.
"""

import argparse
import sys
from pathlib import Path

from uci_engine import UciEngine

DEBIAN_ENGINES = ["/usr/games/glaurung", "/usr/games/toga2", "/usr/games/stockfish",
                  "/usr/games/ethereal-chess"]

# Openings, middle games and endings, none of them in a book or a tablebase.
POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "2rq1rk1/pp1bppbp/3p1np1/4n3/3NP3/1BN1BP2/PPPQ2PP/2KR3R b - - 0 12",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - 0 1",
]


def search(engine, fen, movetime):
    """Returns (nodes, milliseconds) of the last info line of one timed search."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.sync()
    engine.send(f"go movetime {movetime}")
    nodes = ms = None
    for line in engine.wait_for("bestmove", movetime / 1000 + 10):
        tokens = line.split()
        if tokens[:1] != ["info"]:
            continue
        for key, value in zip(tokens, tokens[1:]):
            if key == "nodes" and value.isdigit():
                nodes = int(value)
            elif key == "time" and value.isdigit():
                ms = int(value)
    if nodes is None or not ms:
        sys.exit(f"{engine.name} reported no nodes and time for {fen}")
    return nodes, ms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--movetime", type=int, default=1000, help="ms per search (1000)")
    parser.add_argument("--rounds", type=int, default=1, help="passes over the positions (1)")
    parser.add_argument("--engine", action="append", default=None,
                        help="another UCI engine (repeatable; default: Debian's in /usr/games)")
    args = parser.parse_args()

    ours = args.build / "engine" / "sparring-engine"
    if not ours.is_file():
        sys.exit(f"missing {ours}: build first")
    others = args.engine if args.engine else [p for p in DEBIAN_ENGINES if Path(p).is_file()]
    options = {"Hash": 16, "Threads": 1}
    engines = [UciEngine([str(path)], options) for path in [ours] + others]
    totals = {e.name: [0, 0] for e in engines}
    try:
        for _ in range(args.rounds):
            for fen in POSITIONS:
                for engine in engines:
                    nodes, ms = search(engine, fen, args.movetime)
                    totals[engine.name][0] += nodes
                    totals[engine.name][1] += ms
    finally:
        for engine in engines:
            engine.close()

    searches = args.rounds * len(POSITIONS)
    print(f"{searches} searches of {args.movetime} ms per engine, one thread, 16 MB hash\n")
    print("| engine | nodes | seconds | nodes/second | vs sparring-engine |")
    print("| --- | ---: | ---: | ---: | ---: |")
    base = totals[engines[0].name][0] / totals[engines[0].name][1]
    for engine in engines:
        nodes, ms = totals[engine.name]
        nps = nodes / ms
        print(f"| {engine.name} | {nodes:,} | {ms / 1000:.1f} | {nps * 1000:,.0f} "
              f"| {nps / base:.2f} |")


if __name__ == "__main__":
    main()
