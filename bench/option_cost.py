#!/usr/bin/env python3
"""What the option messages of a tuning pair cost, against the game they come before.

A worker keeps a tuning thread's two engines from pair to pair and, before a pair, sends each
engine `setoption` for every tuned option whose value changed; the next game then starts as
any game does (`ucinewgame`, `isready`, wait for `readyok`). So the cost of tuning over
playing is, per pair and engine, the setoption lines and the engine's handling of them before
its `readyok`; per game (two a pair, two engines a game) that is one engine's extra.

For each engine this measures, alternating the two in ROUNDS rounds of the same engine
process: the time from `ucinewgame` to `readyok` alone, and with the setoption lines of
the tuned options (values alternating as plus and minus would) first; and the wall time of a
game at the time control with `sparring match` (one game at a time, the engine against
itself). Prints the median extra per game and its share of a game's time.

Usage: bench/option_cost.py BUILD_DIR [--rounds N] [--pairs N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uci_engine import UciEngine  # noqa: E402

ENGINES = [
    # name, command, fixed options, tuned options (name, plus, minus), time control
    ("Stockfish 15.1", "/usr/games/stockfish", {"Threads": 1, "Hash": 16},
     [("Skill Level", 12, 8), ("Move Overhead", 30, 10), ("Slow Mover", 110, 90)], "nodes=1000"),
    ("Glaurung 2.2", "/usr/games/glaurung",
     {"Threads": 1, "Hash": 16, "OwnBook": "false", "Ponder": "false"},
     [("Passed Pawns (Middle Game)", 110, 90), ("Passed Pawns (Endgame)", 110, 90),
      ("Aggressiveness", 110, 90), ("Cowardice", 110, 90)], "depth=4"),
]


def handshake_seconds(engine, lines):
    """Returns the time from the first of lines to readyok after ucinewgame and isready."""
    start = time.perf_counter()
    for line in lines:
        engine.send(line)
    engine.send("ucinewgame")
    engine.sync()
    return time.perf_counter() - start


def game_seconds(build, command, options, tc, pairs):
    """Returns the wall time of one game between two copies of the engine at tc."""
    spec = "cmd=" + command + "".join(f",option.{k}={v}" for k, v in options.items())
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "cli", "sparring"), "match", "--tc", tc,
                    "--pairs", str(pairs), "--concurrency", "1", "name=a," + spec,
                    "name=b," + spec], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) / (2 * pairs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--pairs", type=int, default=50)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    for name, command, fixed, tuned, tc in ENGINES:
        if not os.access(command, os.X_OK):
            print(f"{name}: {command} missing, skipped")
            continue
        engine = UciEngine([command], fixed)
        plain, with_options = [], []
        for round_ in range(args.rounds):
            lines = [f"setoption name {option} value {plus if round_ % 2 else minus}"
                     for option, plus, minus in tuned]
            with_options.append(handshake_seconds(engine, lines))
            plain.append(handshake_seconds(engine, []))
        engine.close()
        game = game_seconds(args.build, command, fixed, tc, args.pairs)
        extra = statistics.median(with_options) - statistics.median(plain)
        print(f"{name}, {len(tuned)} options, {tc}: ucinewgame..readyok "
              f"{1e6 * statistics.median(plain):.0f} us, with the setoption lines "
              f"{1e6 * statistics.median(with_options):.0f} us (median of {args.rounds}); "
              f"a game {1e3 * game:.1f} ms; the option messages cost "
              f"{1e6 * extra:.0f} us a game = {100 * extra / game:.3f}% of its time")


if __name__ == "__main__":
    main()
