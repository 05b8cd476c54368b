"""What the Python benchmarks of the coordinator share (bench/dashboard.py, bench/http_abuse.py):
a coordinator on a fresh database with its tokens, REST calls, sparring-loadgen, quantiles."""
import json
import os
import re
import resource
import select
import selectors
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request


def wait_for_file(path, seconds=30):
    """Waits until a file has content; returns it."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return open(path).read().strip()
        time.sleep(0.05)
    raise RuntimeError("no " + path)


def request(base, path, body=None, token=""):
    """Sends a GET (or a POST with a JSON body) and returns the decoded JSON answer."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, data, headers)) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        raise RuntimeError("%s %s: %s" % (path, error.code, error.read().decode())) from None


def quantile(values, q):
    """Returns the q-quantile of values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raise_fd_limit():
    """Raises this process's open-file limit to its hard limit (children inherit it); returns
    the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def free_port():
    """Returns a TCP port of 127.0.0.1 that nothing listens on (for flags without a port file)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Coordinator:
    """sparring-coordinator serving a fresh database in `work` on 127.0.0.1, with a user and a
    worker token; --http-listen always, --metrics-listen when asked. Stop it with stop()."""

    def __init__(self, build, work, metrics=False, extra=()):
        self.tool = os.path.join(build, "coordinator", "sparring-coordinator")
        self.work = work
        os.makedirs(work, exist_ok=True)
        self.db = os.path.join(work, "bench.db")
        self.user = self.token("user")
        self.worker = self.token("worker")
        self.metrics_port = free_port() if metrics else None
        argv = [self.tool, "serve", "--db", self.db, "--listen", "127.0.0.1:0", "--port-file",
                os.path.join(work, "port"), "--http-listen", "127.0.0.1:0", "--http-port-file",
                os.path.join(work, "http-port")]
        if metrics:
            argv += ["--metrics-listen", "127.0.0.1:%d" % self.metrics_port]
        limit = raise_fd_limit()

        def raise_limit():  # already inherited; set again in case the parent's was lowered
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

        self.log = open(os.path.join(work, "coordinator.log"), "a")
        self.process = subprocess.Popen(argv + list(extra), stdout=self.log,
                                        stderr=subprocess.STDOUT, preexec_fn=raise_limit)
        self.pid = self.process.pid
        try:
            self.address = "127.0.0.1:" + wait_for_file(os.path.join(work, "port"))
            self.http_port = int(wait_for_file(os.path.join(work, "http-port")))
        except BaseException:
            self.stop()
            raise
        self.base = "http://127.0.0.1:%d" % self.http_port

    def token(self, role):
        """Creates a token of a role in the database; returns it."""
        return subprocess.run([self.tool, "token", "create", "--db", self.db, "--role", role],
                              check=True, capture_output=True, text=True).stdout.strip()

    def stop(self, seconds=30):
        """Stops the coordinator (SIGTERM, then SIGKILL after `seconds`); safe to call twice."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def loadgen(build, address, user, worker, db, rate, duration, on_run=None, warmup=None):
    """Runs sparring-loadgen; calls on_run(run_id) once its run exists; returns its output.
    The load generator is killed if this is interrupted."""
    process = subprocess.Popen(
        [os.path.join(build, "bench", "sparring-loadgen"), "--coordinator", address,
         "--user-token", user, "--worker-token", worker, "--db", db, "--workers", "1000",
         "--rate", str(rate), "--duration", str(duration)] +
        (["--warmup", str(warmup)] if warmup is not None else []),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        if on_run:
            sql = sqlite3.connect(db, timeout=60)
            before = sql.execute("SELECT max(id) FROM runs").fetchone()[0]
            while True:
                latest = sql.execute("SELECT max(id) FROM runs").fetchone()[0]
                if latest != before:
                    break
                if process.poll() is not None:
                    raise RuntimeError("loadgen ended before its run existed:\n" +
                                       process.stdout.read())
                time.sleep(0.1)
            sql.close()
            on_run(latest)
        out, _ = process.communicate()
    except BaseException:
        process.kill()
        process.wait()
        raise
    if process.returncode != 0:
        raise RuntimeError("loadgen failed:\n" + out)
    return out


def report_p99(out):
    """Returns the report latency p99 (ms) that sparring-loadgen printed."""
    return float(re.search(r"report latency: p50 [\d.]+ ms, p99 ([\d.]+) ms", out)[1])


def connect_many(port, count, seconds=60, window=100, first=b""):
    """Opens `count` connections to 127.0.0.1:port, at most `window` being set up at once (a
    server that accepts slowly makes the kernel drop SYNs past its listen backlog, and a dropped
    SYN is only sent again after 1 s, then 3 s...), giving up after `seconds`; sends `first` on
    each as soon as it is connected (a server may close a connection idle for a few seconds).
    Returns the connected sockets, non-blocking, and how many could not connect."""
    connected = []
    failed = 0
    deadline = time.time() + seconds
    started = 0
    pending = {}
    poller = select.poll()
    while (started < count or pending) and time.time() < deadline:
        while started < count and len(pending) < window:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            pending[s.fileno()] = s
            poller.register(s, select.POLLOUT)
            started += 1
        for fd, _ in poller.poll(max(0.0, min(0.5, deadline - time.time())) * 1000):
            s = pending.pop(fd)
            poller.unregister(fd)
            try:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    raise OSError()
                if first:
                    s.send(first)
                connected.append(s)
            except OSError:
                s.close()
                failed += 1
    for s in pending.values():
        s.close()
    return connected, failed + len(pending) + count - started


def receive(s, size=65536):
    """Reads a non-blocking socket: returns (bytes, None if nothing yet; b"" once the peer
    closed it, reset), whether the peer reset it (RST)."""
    try:
        return s.recv(size), False
    except BlockingIOError:
        return None, False
    except OSError:
        return b"", True


class Viewers:
    """Holds live pages open: each viewer asks for a run's event stream (server-sent events) on
    its own socket, and one thread reads them all, counting the events, the status each stream
    was answered with and the streams the server closed. At most `window` viewers connect at once."""

    def __init__(self, port, run, count, connect_seconds=60, window=10):
        self.events = 0
        self.sockets = []
        self.failed = 0  # could not connect
        self.statuses = {}  # status code (or "none") -> viewers
        self.closed = 0  # streams the server ended (a reset counts)
        self.resets = 0  # of them, ended by a reset (RST)
        self.lock = threading.Lock()
        self.stop = False
        self.heads = {}
        self.sockets, self.failed = connect_many(
            port, count, connect_seconds, window,
            ("GET /runs/%d/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream"
             "\r\n\r\n" % run).encode())
        self.heads = {s: b"" for s in self.sockets}
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        """Reads every socket until stopped."""
        selector = selectors.DefaultSelector()
        for s in self.sockets:
            selector.register(s, selectors.EVENT_READ)
        while not self.stop:
            for key, _ in selector.select(timeout=0.2):
                s = key.fileobj
                data, reset = receive(s)
                if data is None:
                    continue
                self.resets += reset
                with self.lock:
                    if s in self.heads and (data == b"" or len(self.heads[s]) < 12):
                        head = self.heads.pop(s) + data
                        if len(head) >= 12 or data == b"":
                            code = head[9:12].decode(errors="replace") if head.startswith(
                                b"HTTP/") else "none"
                            self.statuses[code] = self.statuses.get(code, 0) + 1
                        else:
                            self.heads[s] = head
                    if data == b"":
                        self.closed += 1
                        selector.unregister(s)
                    self.events += data.count(b"data: ")
        selector.close()

    def close(self):
        """Stops reading and closes every socket."""
        self.stop = True
        self.thread.join()
        for s in self.sockets:
            s.close()
