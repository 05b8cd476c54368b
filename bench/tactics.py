#!/usr/bin/env python3
"""Tactical suite: how many positions of an EPD file (bm in SAN) an engine solves at a fixed
time per position, for sparring-engine and, in the same run, Stockfish.

    python3 bench/tactics.py [--engine build/engine/sparring-engine] [--movetime 1000]
                             [--epd bench/tactics.epd] [--stockfish /usr/games/stockfish]
                             [--no-stockfish] [--verbose]
"""
import argparse
import os
import re
import sys

from uci_engine import UciEngine

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAN_PATTERN = re.compile(r"^([NBRQK])?([a-h])?([1-8])?x?([a-h][1-8])(?:=?([NBRQ]))?$")


def parse_epd(path):
    """Returns (id, fen, [bm SAN]) for each line of an EPD file."""
    positions = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(None, 4)
            if len(fields) < 5:
                sys.exit(f"{path}:{number}: expected four FEN fields and operations")
            fen = " ".join(fields[:4]) + " 0 1"
            ops = {}
            for op in fields[4].split(";"):
                op = op.strip()
                if op:
                    name, _, value = op.partition(" ")
                    ops[name] = value.strip().strip('"')
            if "bm" not in ops:
                sys.exit(f"{path}:{number}: no bm operation")
            positions.append((ops.get("id", f"line {number}"), fen, ops["bm"].split()))
    return positions


def board_of(fen):
    """Returns {square name: piece letter} and the side to move of a FEN."""
    placement, side = fen.split()[:2]
    board = {}
    for rank_index, row in enumerate(placement.split("/")):
        file_index = 0
        for ch in row:
            if ch.isdigit():
                file_index += int(ch)
            else:
                board["abcdefgh"[file_index] + str(8 - rank_index)] = ch
                file_index += 1
    return board, side


def matches_san(fen, uci, san):
    """Returns whether the legal move uci (e2e4) is the move written san in this position."""
    board, side = board_of(fen)
    src, dst, promo = uci[:2], uci[2:4], uci[4:].upper()
    piece = board.get(src, "").upper()
    san = san.rstrip("+#!?")
    if san in ("O-O", "0-0", "O-O-O", "0-0-0"):
        long_castle = san.count("O") + san.count("0") == 3
        return piece == "K" and src[0] == "e" and dst[0] == ("c" if long_castle else "g")
    m = SAN_PATTERN.match(san)
    if not m:
        sys.exit(f"cannot read SAN '{san}' in {fen}")
    san_piece, from_file, from_rank, target, san_promo = m.groups()
    return (piece == (san_piece or "P") and dst == target and promo == (san_promo or "")
            and (from_file is None or src[0] == from_file)
            and (from_rank is None or src[1] == from_rank))


def best_move(engine, fen, movetime_ms):
    """Returns (move, depth of the last info line) of one timed search from a new game."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.sync()
    engine.send(f"go movetime {movetime_ms}")
    lines = engine.wait_for("bestmove", movetime_ms / 1000 + 10)
    depth = next((l.split()[2] for l in reversed(lines) if l.startswith("info depth")), "?")
    return lines[-1].split()[1], depth


def run_suite(name, engine, positions, movetime, verbose):
    solved = 0
    for ident, fen, bms in positions:
        move, depth = best_move(engine, fen, movetime)
        ok = any(matches_san(fen, move, bm) for bm in bms)
        solved += ok
        if verbose:
            print(f"  {name:<16} {ident:<20} bm {' '.join(bms):<10} played {move:<6} "
                  f"depth {depth:<3} {'solved' if ok else 'missed'}")
    return solved


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default=os.path.join(ROOT, "build/engine/sparring-engine"))
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--no-stockfish", action="store_true")
    parser.add_argument("--epd", default=os.path.join(HERE, "tactics.epd"))
    parser.add_argument("--movetime", type=int, default=1000, help="milliseconds per position")
    parser.add_argument("--verbose", action="store_true", help="one line per position")
    args = parser.parse_args()
    if args.movetime <= 0:
        sys.exit("--movetime must be positive")
    if not os.access(args.engine, os.X_OK):
        sys.exit(f"{args.engine} is not an executable; build it or pass --engine")
    positions = parse_epd(args.epd)

    players = [("sparring-engine", [args.engine], {"Hash": 16})]
    if not args.no_stockfish:
        players.append(("stockfish", [args.stockfish], {"Hash": 16, "Threads": 1}))
    print(f"{len(positions)} positions from {os.path.relpath(args.epd)}, "
          f"{args.movetime} ms each, one thread, 16 MB hash")
    for name, command, options in players:
        engine = UciEngine(command, options)
        try:
            solved = run_suite(name, engine, positions, args.movetime, args.verbose)
        finally:
            engine.close()
        print(f"{name}: solved {solved}/{len(positions)}")


if __name__ == "__main__":
    main()
