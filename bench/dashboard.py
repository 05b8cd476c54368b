#!/usr/bin/env python3
"""Dashboard benchmark (BENCHMARKS.md): page render times on a database of 100 runs and
1,000,000 games, and what 200 live viewers cost the result reports of a loaded coordinator.

  bench/dashboard.py BUILD_DIR [--viewers 200] [--rate 2000] [--duration 20] [--rounds 2]

1. A coordinator serves a fresh database with --http-listen. 100 regression runs are submitted
   over the REST API; their results (1,000,000 games in reports of 4 pairs, one run holding
   200,000) are written into the results table with SQL, and each run's counters set to match.
2. `/`, the page of the largest run and of a small run are fetched 300 times each, one after
   another on 127.0.0.1; the latencies' p50 and p99 are printed.
3. sparring-loadgen reports at --rate for --duration seconds on the same coordinator, the two
   arms alternating --rounds times: alone, then while --viewers clients hold the live page
   (server-sent events) of the run it loads. Each round's report p99, the median p99 of each
   arm and their ratio are printed.
"""
import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import Coordinator, Viewers, loadgen, quantile, report_p99, request  # noqa: E402


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def seed(base, db, token, runs, games, big_games):
    """Submits the runs over REST and writes their reports with SQL; returns the run ids."""
    for name in ("bench-a", "bench-b"):
        request(base, "/api/v1/versions",
                {"version": {"name": name, "builtin": {"preset": "default"}, "bench": "1"}}, token)
    ids = []
    for i in range(runs):
        spec = {"kind": "RUN_KIND_REGRESSION", "test_version": "bench-a", "base_version": "bench-b",
                "time_control": {"nodes": "1000"}, "games": str(2 * big_games),
                "sprt": {"elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.05},
                "book": {"openings": [{"fen": START, "moves": ["e2e4"]}], "source": "bench"},
                "priority": i % 3, "description": "benchmark run %d" % i}
        ids.append(int(request(base, "/api/v1/runs", {"spec": spec}, token)["id"]))
    sql = sqlite3.connect(db, timeout=60)
    sql.execute("PRAGMA busy_timeout = 60000")
    now = int(time.time() * 1000)
    worker = sql.execute(
        "INSERT INTO workers (token_id, name, cores, memory_mb, concurrency, uci_engines, build, "
        "registered_ms, last_seen_ms) VALUES (1, 'bench', 2, 1024, 2, '[]', 'bench', ?, ?)",
        (now, now)).lastrowid
    small = (games - big_games) // (runs - 1)
    rng = random.Random(1)
    for index, run in enumerate(ids):
        run_games = big_games if index == 0 else small
        pairs = run_games // 2
        batch = sql.execute(
            "INSERT INTO batches (run_id, worker_id, first_pair, pairs, cores, state, reported, "
            "created_ms, expires_ms) VALUES (?, ?, 0, ?, 2, 'done', x'', ?, ?)",
            (run, worker, pairs, now, now)).lastrowid
        totals = [0] * 5
        rows = []
        for sequence in range(pairs // 4):
            penta = [0] * 5
            for _ in range(4):
                penta[min(4, max(0, int(rng.gauss(2.05, 0.9) + 0.5)))] += 1
            totals = [a + b for a, b in zip(totals, penta)]
            wins = penta[3] + 2 * penta[4] + penta[2] // 2
            losses = penta[1] + 2 * penta[0] + penta[2] // 2
            rows.append((batch, sequence + 1, run, worker, 4, wins, 8 - wins - losses, losses,
                         *penta, "seed", now - (pairs // 4 - sequence) * 100))
        sql.executemany(
            "INSERT INTO results (batch_id, sequence, run_id, worker_id, pairs, wins, draws, "
            "losses, ll, ld, dd_wl, wd, ww, digest, received_ms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        wins = sum(r[5] for r in rows)
        draws = sum(r[6] for r in rows)
        losses = sum(r[7] for r in rows)
        sql.execute(
            "UPDATE runs SET pairs_done = ?, next_pair = ?, wins = ?, draws = ?, losses = ?, "
            "ll = ?, ld = ?, dd_wl = ?, wd = ?, ww = ?, state = ?, result = ?, finished_ms = ?, "
            "priority = ? WHERE id = ?",
            (pairs, pairs, wins, draws, losses, *totals,
             "active" if index % 10 == 0 else "finished",
             "" if index % 10 == 0 else "maximum games reached",
             0 if index % 10 == 0 else now,
             # Below the load generator's run, which the scheduler then serves alone.
             -1 if index % 10 == 0 else index % 3, run))
    sql.commit()
    total = sql.execute("SELECT 2 * sum(pairs) FROM results").fetchone()[0]
    sql.close()
    return ids, total


def time_page(base, path, count):
    """Fetches a page count times; returns (p50, p99, bytes) in milliseconds."""
    latencies = []
    size = 0
    for _ in range(count):
        start = time.perf_counter()
        with urllib.request.urlopen(base + path) as answer:
            size = len(answer.read())
        latencies.append(1000 * (time.perf_counter() - start))
    return quantile(latencies, 0.5), quantile(latencies, 0.99), size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--duration", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    work = tempfile.mkdtemp(prefix="sparring-dashboard-bench-")
    coordinator = Coordinator(
        build, work,
        # Each round's load generator registers 1,000 more workers under the one worker token,
        # while the leases of the round before are still out: the per-token caps (1,000 by
        # default) would refuse the later rounds' work. The seed submits 100 runs in seconds, past
        # a user's default of 60 a minute. Every viewer comes from 127.0.0.1, past the 50 live
        # pages one address may hold by default.
        extra=["--max-workers-per-token", "1000000", "--max-leases-per-token", "1000000",
               "--max-submits-per-minute", "1000", "--http-max-viewers-per-address", "1000000"])
    address, http_port, base = coordinator.address, coordinator.http_port, coordinator.base
    db, user, worker = coordinator.db, coordinator.user, coordinator.worker
    try:
        started = time.time()
        ids, total = seed(base, db, user, 100, 1_000_000, 200_000)
        print("seeded:          %d runs, %d games in %.0f s" % (len(ids), total,
                                                                time.time() - started))
        for label, path in (("/", "/"), ("run, 200,000 games", "/runs/%d" % ids[0]),
                            ("run, 8,080 games", "/runs/%d" % ids[1]),
                            ("REST run", "/api/v1/runs/%d" % ids[0])):
            p50, p99, size = time_page(base, path, 300)
            print("%-20s p50 %6.2f ms, p99 %6.2f ms, %d bytes" % (label + ":", p50, p99, size))

        p99 = {"alone": [], "viewers": []}
        events = 0
        for round_ in range(args.rounds):
            for arm in ("alone", "viewers"):
                holder = {}

                def attach(run):
                    holder["viewers"] = Viewers(http_port, run, args.viewers)

                out = loadgen(build, address, user, worker, db, args.rate, args.duration,
                              attach if arm == "viewers" else None)
                if arm == "viewers":
                    events += holder["viewers"].events
                    holder["viewers"].close()
                value = report_p99(out)
                p99[arm].append(value)
                print("round %d, %-8s report p99 %7.2f ms   (%s)" % (
                    round_ + 1, arm + ":", value,
                    " ".join(l.strip() for l in out.strip().splitlines()[-2:])))
        print("live events received by the viewers: %d (%.1f per viewer per second)" %
              (events, events / args.viewers / (args.rounds * args.duration)))
        alone = sorted(p99["alone"])[len(p99["alone"]) // 2]
        watched = sorted(p99["viewers"])[len(p99["viewers"]) // 2]
        print("report p99 (median of %d rounds): %.2f ms alone, %.2f ms with %d viewers: "
              "ratio %.3f" % (args.rounds, alone, watched, args.viewers, watched / alone))
    finally:
        coordinator.stop()


if __name__ == "__main__":
    sys.exit(main())
