#!/usr/bin/env python3
"""HTTP abuse benchmark (BENCHMARKS.md, issue 32 item 2): what unauthenticated floods, slow
clients and many live viewers cost the coordinator's two HTTP servers (--http-listen, the
dashboard and REST; --metrics-listen, /metrics).

  bench/http_abuse.py BUILD_DIR [--flood-mb 300] [--flood-connections 1,4] [--slow 1000]
      [--slow-seconds 30] [--viewers 2000] [--rate 1000] [--duration 20] [--rounds 2]
      [--warmup 90] [--load-probes /metrics,/]
      [--phases header,chunked,slow,viewers] [--json FILE] [--coordinator-flags "FLAGS"]

Every connection goes to 127.0.0.1; every phase is bounded in connections, bytes and time.
Each flood and each slow-client measurement gets a coordinator of its own (fresh database), so
that memory one phase left allocated does not hide the next one's.

1. header flood: on each port, 1 and then 4 concurrent connections send a request line and then
   header lines of 100 bytes, --flood-mb MB each, or until the server closes the connection or
   stops reading (--flood-stall seconds); then the blank line ending the head. Printed: what the
   server answered (status, closed, reset, stalled), the bytes it accepted before that, and the
   coordinator's peak RSS (VmRSS every 50 ms) over its RSS before, and its RSS 2 s after.
2. chunked flood: the same with POST /api/v1/runs, Transfer-Encoding: chunked and no token,
   chunks of 64 KiB up to --flood-mb MB per connection.
3. slow connections: on each port, --slow connections each send a partial request head, one byte
   a second, for --slow-seconds. Meanwhile GET /metrics (metrics port) and GET / (dashboard) are
   probed every 200 ms, each probe on a new connection (longer than 5 s: a timeout). Printed:
   the probes' p50/p99/max and timeouts, and how many slow connections the server closed, when.
4. live viewers: sparring-loadgen reports at --rate for --duration s after --warmup s; the two
   arms alternate --rounds times, alone and with --viewers clients on the live page
   (/runs/N/events) of the run it reports into, which connect during the warmup (10 at once at most). Printed: each arm's median report p99 and their ratio, the coordinator's
   threads and RSS with the viewers connected, the viewers' answers, and the probes of both arms.
--coordinator-flags adds flags to every coordinator started (a build with the event-driven
server is measured with its caps raised, `--http-max-viewers 2100
--http-max-connections-per-address 5000`, and from issue 49 on also
`--http-max-viewers-per-address 5000`, since every client here has the one address
127.0.0.1; a build without those flags takes none).
The probes run during every phase; the summary table at the end gives all of it, --json FILE
writes every figure.
"""
import argparse
import json
import os
import select
import shutil
import socket
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (Coordinator, Viewers, connect_many, loadgen,  # noqa: E402
                          quantile, raise_fd_limit, receive, report_p99)

PROBE_TIMEOUT = 5.0  # seconds; a slower probe counts as a timeout
PROBE_INTERVAL = 0.2
LINE = 100  # bytes per flooded header line
CHUNK = 64 * 1024


def mb(n):
    return n / 1e6


class Sampler:
    """Samples a process's VmRSS and thread count every 50 ms in a thread."""

    def __init__(self, pid):
        self.pid = pid
        self.before = self.rss()
        self.peak_rss = self.before
        self.peak_threads = self.threads()
        self.stop_flag = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def rss(self):
        """Returns VmRSS in bytes, 0 once the process is gone."""
        try:
            with open("/proc/%d/status" % self.pid) as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def threads(self):
        try:
            return len(os.listdir("/proc/%d/task" % self.pid))
        except OSError:
            return 0

    def run(self):
        while not self.stop_flag:
            self.peak_rss = max(self.peak_rss, self.rss())
            self.peak_threads = max(self.peak_threads, self.threads())
            time.sleep(0.05)

    def stop(self):
        self.stop_flag = True
        self.thread.join()
        return {"rss_before_mb": mb(self.before), "rss_peak_mb": mb(self.peak_rss),
                "rss_growth_mb": mb(self.peak_rss - self.before), "rss_now_mb": mb(self.rss()),
                "threads_peak": self.peak_threads, "threads_now": self.threads()}


def probe(port, path):
    """GETs a path on a new connection; returns (milliseconds or None on timeout, status or an
    error's name)."""
    start = time.perf_counter()
    deadline = start + PROBE_TIMEOUT
    status = "none"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT) as s:
            s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" %
                       path).encode())
            data = b""
            length = None
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise socket.timeout()
                s.settimeout(remaining)
                more = s.recv(65536)
                if not more:
                    break
                data += more
                end = data.find(b"\r\n\r\n")
                if end >= 0 and length is None:
                    status = data[9:12].decode(errors="replace")
                    for line in data[:end].split(b"\r\n")[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value)
                if length is not None and len(data) >= end + 4 + length:
                    break
    except socket.timeout:
        return None, "timeout"
    except OSError as error:
        return 1000 * (time.perf_counter() - start), type(error).__name__
    return 1000 * (time.perf_counter() - start), status


class Prober:
    """Probes GET /metrics on the metrics port and GET / on the dashboard every 200 ms, each
    probe on a new connection and a thread of its own so that a stuck probe does not delay the
    next (at most `in_flight` at once per target; with 1, a probe starts 200 ms after the one
    before or when it ends, whichever is later)."""

    def __init__(self, targets, in_flight=64):
        self.targets = targets  # label -> (port, path)
        self.in_flight = in_flight
        self.results = {label: [] for label in targets}
        self.probes = []  # probe threads perhaps still running
        self.lock = threading.Lock()
        self.stop_flag = False
        self.start_time = time.time()
        self.threads = [threading.Thread(target=self.run, args=(label,), daemon=True)
                        for label in targets]
        for thread in self.threads:
            thread.start()

    def run(self, label):
        port, path = self.targets[label]
        in_flight = threading.BoundedSemaphore(self.in_flight)
        tick = time.time()
        while not self.stop_flag:
            in_flight.acquire()

            def one():
                offset = time.time() - self.start_time
                try:
                    latency, status = probe(port, path)
                    with self.lock:
                        self.results[label].append((offset, latency, status))
                finally:
                    in_flight.release()

            thread = threading.Thread(target=one, daemon=True)
            thread.start()
            with self.lock:
                self.probes = [t for t in self.probes if t.is_alive()] + [thread]
            tick += PROBE_INTERVAL
            time.sleep(max(0.0, tick - time.time()))

    def stop(self):
        """Stops probing, waits for the probes in flight (each ends within PROBE_TIMEOUT);
        returns each target's summary."""
        self.stop_flag = True
        for thread in self.threads:
            thread.join()
        deadline = time.time() + PROBE_TIMEOUT + 1
        for thread in list(self.probes):
            thread.join(max(0.0, deadline - time.time()))
        with self.lock:
            return {label: summarize(self.results[label]) for label in self.targets}


def summarize(results):
    """Summarizes probes: count, p50/p99/max of the answered ones with timeouts as infinite,
    timeouts, answers other than 200."""
    latencies = [float("inf") if latency is None else latency for _, latency, status in results
                 if status == "200" or latency is None]
    bad = {}
    for _, latency, status in results:
        if status not in ("200", "timeout"):
            bad[status] = bad.get(status, 0) + 1
    timeouts = sum(1 for _, latency, _ in results if latency is None)
    over_100 = sum(1 for value in latencies if value > 100)
    summary = {"probes": len(results), "timeouts": timeouts, "over_100ms": over_100,
               "not_200": bad}
    if latencies:
        summary.update(p50_ms=quantile(latencies, 0.5), p99_ms=quantile(latencies, 0.99),
                       max_ms=max(latencies))
    return summary


def wait_answering(ports, seconds=60):
    """Waits until every (port, path) answers a probe 200 within 100 ms; returns the seconds
    waited, or None if they did not within `seconds`."""
    start = time.time()
    while time.time() - start < seconds:
        if all((lambda r: r[1] == "200" and r[0] is not None and r[0] < 100)(probe(port, path))
               for port, path in ports):
            return time.time() - start
        time.sleep(0.2)
    return None


def flood_one(kind, port, total, stall, limit, result):
    """Sends one flood (kind "header" or "chunked") of `total` bytes to a port; fills result."""
    if kind == "header":
        path = "/metrics" if result["port"] == "metrics" else "/"
        head = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % path
        value = b"a" * (LINE - len(b"X-Flood-0000000-000: \r\n"))
        template = b"".join(b"X-Flood-BBBBBBB-%03d: %s\r\n" % (i, value)
                            for i in range(CHUNK // LINE))
        end = b"\r\n"
    else:
        head = ("POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                "\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (CHUNK, b" " * CHUNK)
        end = b"0\r\n\r\n"
    sent = 0
    answer = b""
    outcome = None  # why the sending stopped early
    closed = False  # the server closed the connection after its answer
    accepted_at_answer = None
    start = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=stall)
    try:
        s.sendall(head.encode())
        poller = select.poll()
        poller.register(s, select.POLLIN)
        block_number = 0
        while sent < total and outcome is None:
            if time.time() - start > limit:
                outcome = "time limit"
                break
            if kind == "header":
                block = template.replace(b"BBBBBBB", b"%07d" % block_number)
            else:
                block = chunk
            block_number += 1
            view = memoryview(block)
            while view and outcome is None:
                if poller.poll(0):
                    try:
                        more = s.recv(65536)
                    except OSError:
                        more = b""
                    if accepted_at_answer is None:
                        accepted_at_answer = sent
                    if not more:
                        outcome = "closed"
                        break
                    answer += more
                try:
                    n = s.send(view)
                except socket.timeout:
                    outcome = "stalled"
                    break
                except (BrokenPipeError, ConnectionResetError):
                    outcome = "reset"
                    break
                sent += n
                view = view[n:]
        if outcome is None:
            try:
                s.sendall(end)
            except socket.timeout:
                outcome = "stalled"
            except (BrokenPipeError, ConnectionResetError):
                outcome = "reset"
        # What the server answers (for a whole flood, after it has read it all).
        deadline = time.time() + 30
        while time.time() < deadline:
            s.settimeout(1 if answer.find(b"\r\n\r\n") >= 0 else max(0.1, deadline - time.time()))
            try:
                more = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                more = b""
            if not more:
                closed = True
                break
            if accepted_at_answer is None:
                accepted_at_answer = sent
            answer += more
    finally:
        s.close()
    status = answer[9:12].decode(errors="replace") if answer.startswith(b"HTTP/") else None
    outcome = outcome or "sent all"
    if outcome in ("sent all", "stalled", "time limit"):
        outcome += ", then closed" if closed else ", kept open"
    result.update(sent_mb=mb(sent), status=status, outcome=outcome,
                  accepted_before_answer_mb=None if accepted_at_answer is None
                  else mb(accepted_at_answer), seconds=time.time() - start)


def describe(result):
    """A flood's answer: the status (or none) and what became of the connection."""
    return "%s (%s)" % (result["status"] or "no answer", result["outcome"])


def run_flood(args, work, kind, port_name, connections):
    """One flood measurement on a fresh coordinator; returns its figures."""
    coordinator = Coordinator(args.build, os.path.join(work, "%s-%s-%d" % (kind, port_name,
                                                                           connections)),
                              metrics=True, extra=args.coordinator_flags.split())
    try:
        time.sleep(1)
        ports = {"metrics": coordinator.metrics_port, "dashboard": coordinator.http_port}
        prober = Prober({"/metrics": (coordinator.metrics_port, "/metrics"),
                         "/": (coordinator.http_port, "/")})
        sampler = Sampler(coordinator.pid)
        results = [{"port": port_name} for _ in range(connections)]
        threads = [threading.Thread(target=flood_one, daemon=True,
                                    args=(kind, ports[port_name], args.flood_mb * 1_000_000,
                                          args.flood_stall, args.flood_seconds, result))
                   for result in results]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(2)
        memory = sampler.stop()
        probes = prober.stop()
        alive = coordinator.process.poll() is None
    finally:
        coordinator.stop()
    figures = {"kind": kind, "port": port_name, "connections": connections,
               "flood_mb_each": args.flood_mb, "results": results, "memory": memory,
               "probes": probes, "coordinator_alive": alive}
    outcomes = ", ".join(sorted(set(describe(r) for r in results)))
    print("%-7s flood, %-9s port, %d conn: answer %s; sent %.1f MB (first answer after %s); "
          "RSS %.0f -> peak %.0f MB (+%.0f), %.0f MB 2 s later%s" % (
              kind, port_name, connections, outcomes, sum(r["sent_mb"] for r in results),
              "/".join("-" if r["accepted_before_answer_mb"] is None
                       else "%.1f" % r["accepted_before_answer_mb"] for r in results),
              memory["rss_before_mb"], memory["rss_peak_mb"], memory["rss_growth_mb"],
              memory["rss_now_mb"], "" if alive else "; THE COORDINATOR DIED"), flush=True)
    return figures


class SlowClients:
    """Connections that each send a partial request head one byte a second."""

    def __init__(self, port, path, count, seconds, connect_seconds=30, window=50):
        self.head = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\nX-Slow: " %
                     path).encode() + b"a" * (seconds + 10)
        self.sockets = {}  # socket -> bytes sent
        self.failed = 0
        self.closed = []  # seconds after the start when the server closed one
        self.resets = 0  # of them, by a reset (RST): never accepted, or dropped unread
        self.answers = {}
        self.start = time.time()
        connected, self.failed = connect_many(port, count, connect_seconds, window,
                                              self.head[:1])
        self.sockets = {s: 1 for s in connected}
        self.connected = len(self.sockets)
        self.connect_seconds = time.time() - self.start

    def run(self, seconds):
        """Sends a byte a second on each open connection for `seconds`, noting the ones the
        server closes; then closes them all."""
        try:
            end = time.time() + seconds
            tick = time.time() + 1
            while time.time() < end and self.sockets:
                timeout = max(0.0, min(tick, end) - time.time())
                for s in self.poll(timeout):
                    data, reset = receive(s, 4096)
                    if data is None:
                        continue
                    self.resets += reset
                    if data.startswith(b"HTTP/"):
                        code = data[9:12].decode(errors="replace")
                        self.answers[code] = self.answers.get(code, 0) + 1
                    if not data:
                        self.gone(s)
                if time.time() >= tick:
                    tick += 1
                    for s in list(self.sockets):
                        sent = self.sockets[s]
                        try:
                            if s.send(self.head[sent:sent + 1]) == 1:
                                self.sockets[s] = sent + 1
                        except BlockingIOError:
                            pass
                        except OSError:
                            self.resets += 1
                            self.gone(s)
        finally:
            for s in self.sockets:
                s.close()

    def poll(self, timeout):
        """Returns the open sockets that can be read within `timeout` seconds (select() cannot
        take descriptors past 1,023)."""
        poller = select.poll()
        by_fd = {s.fileno(): s for s in self.sockets}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        return [by_fd[fd] for fd, _ in poller.poll(timeout * 1000)]

    def gone(self, s):
        self.closed.append(time.time() - self.start)
        del self.sockets[s]
        s.close()


def run_slow(args, work, port_name):
    """--slow slow connections to one port of a fresh coordinator while both are probed."""
    coordinator = Coordinator(args.build, os.path.join(work, "slow-%s" % port_name), metrics=True,
                              extra=args.coordinator_flags.split())
    try:
        time.sleep(1)
        port, path = {"metrics": (coordinator.metrics_port, "/metrics"),
                      "dashboard": (coordinator.http_port, "/")}[port_name]
        targets = {"/metrics": (coordinator.metrics_port, "/metrics"),
                   "/": (coordinator.http_port, "/")}
        sampler = Sampler(coordinator.pid)
        prober = Prober(targets)
        slow = SlowClients(port, path, args.slow, args.slow_seconds)
        slow.run(args.slow_seconds)
        probes = prober.stop()
        memory = sampler.stop()
        recovered = wait_answering(targets.values())
        alive = coordinator.process.poll() is None
    finally:
        coordinator.stop()
    closed = sorted(slow.closed)
    figures = {"port": port_name, "slow": args.slow, "seconds": args.slow_seconds,
               "connected": slow.connected, "connect_failed": slow.failed,
               "connect_seconds": slow.connect_seconds, "closed_by_server": len(closed),
               "of_them_reset": slow.resets,
               "closed_at_s": {"first": closed[0], "median": quantile(closed, 0.5),
                               "last": closed[-1]} if closed else None,
               "answers": slow.answers, "probes": probes, "memory": memory,
               "recovered_after_s": recovered, "coordinator_alive": alive}
    print("slow on %-9s: %d connected (%d failed, %.1f s), server closed %d (%d by RST)%s, "
          "answers %s; threads peak %d" % (
              port_name, slow.connected, slow.failed, slow.connect_seconds, len(closed),
              slow.resets,
              " (at %.1f/%.1f/%.1f s)" % (closed[0], quantile(closed, 0.5), closed[-1])
              if closed else "", slow.answers or "none", memory["threads_peak"]))
    for label, summary in probes.items():
        print("    probes %-8s %s" % (label, format_probes(summary)))
    print("    both answering within 100 ms %s after the slow connections closed" %
          ("%.1f s" % recovered if recovered is not None else "NOT within 60 s"), flush=True)
    return figures


def format_ms(value):
    return "timeout" if value == float("inf") else "%.1f ms" % value


def format_probes(summary):
    if not summary.get("probes"):
        return "no probes"
    return "%d probes: p50 %s, p99 %s, max %s, %d timeouts, %d over 100 ms%s" % (
        summary["probes"], format_ms(summary.get("p50_ms", float("inf"))),
        format_ms(summary.get("p99_ms", float("inf"))), format_ms(summary.get("max_ms", float("inf"))),
        summary["timeouts"], summary["over_100ms"],
        ", not 200: %s" % summary["not_200"] if summary["not_200"] else "")


def run_viewers(args, work):
    """Report p99 with and without --viewers live viewers, alternating --rounds times."""
    coordinator = Coordinator(
        args.build, os.path.join(work, "viewers"), metrics=True,
        # Each round's load generator registers 1,000 more workers under the one worker token
        # (see bench/dashboard.py).
        extra=["--max-workers-per-token", "1000000", "--max-leases-per-token", "1000000"] +
        args.coordinator_flags.split())
    rounds = []
    try:
        targets = {"/metrics": (coordinator.metrics_port, "/metrics"),
                   "/": (coordinator.http_port, "/")}
        for round_ in range(args.rounds):
            for arm in ("alone", "viewers"):
                holder = {}

                def attach(run):
                    holder["sampler"] = Sampler(coordinator.pid)
                    # One probe in flight per target: /metrics reads the database (every
                    # worker), and probes piling up behind the reports would load it.
                    holder["prober"] = Prober(
                        {label: targets[label] for label in args.load_probes.split(",") if label},
                        in_flight=1)
                    if arm == "viewers":
                        started = time.time()
                        # Connected before the load generator's measured window, if they can.
                        holder["viewers"] = Viewers(coordinator.http_port, run, args.viewers,
                                                    connect_seconds=max(5, args.warmup - 5))
                        holder["connect_seconds"] = time.time() - started

                try:
                    out = loadgen(args.build, coordinator.address, coordinator.user,
                                  coordinator.worker, coordinator.db, args.rate, args.duration,
                                  attach, args.warmup)
                finally:
                    viewers = holder.get("viewers")
                    if viewers:
                        viewers.close()
                    probes = holder["prober"].stop() if "prober" in holder else {}
                    memory = holder["sampler"].stop() if "sampler" in holder else {}
                reports = [line.strip() for line in out.splitlines()
                           if line.startswith("reports:")]
                figures = {"round": round_ + 1, "arm": arm, "report_p99_ms": report_p99(out),
                           "reports": reports[0] if reports else "", "probes": probes,
                           "memory": memory}
                if viewers:
                    figures.update(viewers_connected=len(viewers.sockets),
                                   viewers_failed=viewers.failed,
                                   viewers_connect_seconds=holder["connect_seconds"],
                                   viewer_statuses=viewers.statuses,
                                   viewers_closed=viewers.closed, viewers_reset=viewers.resets,
                                   viewers_silent=len(viewers.sockets) -
                                   sum(viewers.statuses.values()),
                                   events=viewers.events)
                rounds.append(figures)
                print("round %d, %-8s report p99 %7.2f ms (%s); threads peak %d, RSS peak %.0f MB"
                      % (round_ + 1, arm + ":", figures["report_p99_ms"], figures["reports"],
                         memory["threads_peak"], memory["rss_peak_mb"]))
                if viewers:
                    print("    viewers: %d connected in %.1f s (%d failed), answered %s, %d never "
                          "answered, %d closed by the server (%d by RST), %d events" % (
                              len(viewers.sockets), holder["connect_seconds"], viewers.failed,
                              viewers.statuses, figures["viewers_silent"], viewers.closed,
                              viewers.resets, viewers.events))
                for label, summary in probes.items():
                    print("    probes %-8s %s" % (label, format_probes(summary)))
                sys.stdout.flush()
        alive = coordinator.process.poll() is None
    finally:
        coordinator.stop()

    def median(arm):
        values = sorted(r["report_p99_ms"] for r in rounds if r["arm"] == arm)
        return values[len(values) // 2]

    alone, watched = median("alone"), median("viewers")
    print("report p99 (median of %d rounds): %.2f ms alone, %.2f ms with %d viewers: ratio %.3f"
          % (args.rounds, alone, watched, args.viewers, watched / alone), flush=True)
    return {"viewers": args.viewers, "rate": args.rate, "duration": args.duration,
            "warmup": args.warmup,
            "rounds": rounds, "p99_alone_ms": alone, "p99_viewers_ms": watched,
            "ratio": watched / alone, "coordinator_alive": alive}


def worst(probes):
    """The worst of several targets' probe summaries, as 'p99 / max, timeouts'."""
    return "; ".join("%s p99 %s, max %s, %d t/o" % (
        label, format_ms(s.get("p99_ms", float("inf"))), format_ms(s.get("max_ms", float("inf"))),
        s["timeouts"]) for label, s in probes.items())


def print_table(report):
    """The summary as a Markdown table."""
    print("\n| phase | server's answer | accepted | coordinator | probes during it |")
    print("| --- | --- | --- | --- | --- |")
    for f in report.get("floods", []):
        answers = ", ".join(sorted(set(describe(r) for r in f["results"])))
        accepted = " / ".join("%.1f MB" % (r["accepted_before_answer_mb"]
                                           if r["accepted_before_answer_mb"] is not None
                                           else r["sent_mb"]) for r in f["results"])
        m = f["memory"]
        print("| %s flood, %s port, %d × %d MB | %s | %s | RSS %.0f → peak %.0f MB (**+%.0f**), "
              "%.0f after%s | %s |" % (
                  f["kind"], f["port"], f["connections"], f["flood_mb_each"], answers, accepted,
                  m["rss_before_mb"], m["rss_peak_mb"], m["rss_growth_mb"], m["rss_now_mb"],
                  "" if f["coordinator_alive"] else ", DIED", worst(f["probes"])))
    for s in report.get("slow", []):
        closed = s["closed_at_s"]
        print("| %d slow connections, %s port, %d s | %s | %d connected | %d closed by the "
              "server (%d by RST)%s; threads peak %d; recovered %s | %s |" % (
                  s["slow"], s["port"], s["seconds"], s["answers"] or "none", s["connected"],
                  s["closed_by_server"], s["of_them_reset"],
                  " (%.1f–%.1f s)" % (closed["first"], closed["last"]) if closed else "",
                  s["memory"]["threads_peak"],
                  "%.1f s" % s["recovered_after_s"] if s["recovered_after_s"] is not None
                  else "no", worst(s["probes"])))
    v = report.get("viewers")
    if v:
        for arm in ("alone", "viewers"):
            rows = [r for r in v["rounds"] if r["arm"] == arm]
            probes = {}
            for label in rows[0]["probes"]:
                merged = {"timeouts": sum(r["probes"][label]["timeouts"] for r in rows),
                          "p99_ms": max(r["probes"][label].get("p99_ms", 0) for r in rows),
                          "max_ms": max(r["probes"][label].get("max_ms", 0) for r in rows)}
                probes[label] = merged
            statuses = {}
            for r in rows:
                for code, count in r.get("viewer_statuses", {}).items():
                    statuses[code] = statuses.get(code, 0) + count
                if r.get("viewers_silent"):
                    statuses["no answer"] = statuses.get("no answer", 0) + r["viewers_silent"]
            print("| %s, %d reports/s × %d s, %d rounds | %s | %s | threads peak %d, RSS peak "
                  "%.0f MB; report p99 median **%.1f ms** | %s |" % (
                      "%d live viewers" % v["viewers"] if arm == "viewers" else "no viewers",
                      v["rate"], v["duration"], len(rows),
                      ", ".join("%d× %s" % (n // len(rows), c)
                                for c, n in sorted(statuses.items())) or "–",
                      "%d connected" % max(r.get("viewers_connected", 0) for r in rows)
                      if arm == "viewers" else "–",
                      max(r["memory"]["threads_peak"] for r in rows),
                      max(r["memory"]["rss_peak_mb"] for r in rows),
                      v["p99_%s_ms" % arm], worst(probes)))
        print("\nreport p99 ratio with %d viewers: **%.3f**" % (v["viewers"], v["ratio"]))


def finite(value):
    """The report with each infinite latency (a timeout) written as "timeout", for JSON."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return "timeout" if value == float("inf") else value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("--flood-mb", type=int, default=300, help="MB per flood connection")
    parser.add_argument("--flood-connections", default="1,4")
    parser.add_argument("--flood-stall", type=float, default=10,
                        help="a send blocked this long: the server stopped reading")
    parser.add_argument("--flood-seconds", type=float, default=180,
                        help="longest time one flood connection sends")
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--slow-seconds", type=int, default=30)
    parser.add_argument("--viewers", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=90,
                        help="the load generator's unmeasured seconds, in which the viewers "
                        "connect (at most this less 5 s)")
    parser.add_argument("--load-probes", default="/metrics,/",
                        help="what is probed during the live-viewer phase (/metrics reads every "
                        "worker's row: 1.5-2.5 s with 1,000 workers)")
    parser.add_argument("--phases", default="header,chunked,slow,viewers")
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument("--coordinator-flags", default="",
                        help="more flags for every coordinator started, space-separated")
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    phases = args.phases.split(",")
    limit = raise_fd_limit()
    needed = max(args.slow, args.viewers) + 200
    if limit < needed:
        sys.exit("the open-file hard limit %d is under the %d this needs" % (limit, needed))
    work = tempfile.mkdtemp(prefix="sparring-http-abuse-")
    report = {"args": vars(args), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
              "load_before": os.getloadavg()}
    started = time.time()
    ok = False
    try:
        for kind in ("header", "chunked"):
            if kind not in phases:
                continue
            for port_name in ("dashboard", "metrics"):
                for connections in (int(n) for n in args.flood_connections.split(",")):
                    report.setdefault("floods", []).append(
                        run_flood(args, work, kind, port_name, connections))
        if "slow" in phases:
            report["slow"] = [run_slow(args, work, port_name)
                              for port_name in ("metrics", "dashboard")]
        if "viewers" in phases:
            report["viewers"] = run_viewers(args, work)
        ok = True
    finally:
        report["seconds"] = time.time() - started
        report["load_after"] = os.getloadavg()
        if ok:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("stopped; the coordinators' logs are in " + work, file=sys.stderr)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(finite(report), out, indent=1, default=str)
    print_table(report)
    print("\n%.0f s in all; load average %.1f before, %.1f after" % (
        report["seconds"], report["load_before"][0], report["load_after"][0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
