#!/usr/bin/env python3
"""The dashboard in a real browser: headless Chromium opens `/` and the page of a live SPRT run
played by a real worker, waits until the LLR plot has drawn, checks that the games count on
the page grows without a reload (server-sent events) and that the workers' table follows it,
and saves a screenshot. Then: the warning in the runs list, a run's faults table, the plot of
two tuning runs (the built-in engine's parameters and stockfish's spin options, each line named
in its legend, the toggle to the change over c) and the run page's form.

usage: browser_test.py BUILD_DIR [--screenshot FILE [--screenshot-games N]]; exits 77
(skipped) without Chromium. With --screenshot-games the screenshot waits until the run has N
games, opens the page afresh (so its workers' fits and leases hold them) and shows it down to
the specification: how docs/dashboard-run.png is made.
"""
import argparse
import base64
import fcntl
import html
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP = 77


def chromium():
    """Returns the Chromium binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browse(browser, profile, url, *extra, wait_ms=6000):
    """Runs headless Chromium on a URL for wait_ms and returns its standard output."""
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--user-data-dir=" + profile, "--window-size=1280,1500",
            "--timeout=%d" % wait_ms, *extra, url]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("chromium failed: " + done.stderr[-2000:])
    return done.stdout


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe):
    one page, JavaScript evaluated in it, screenshots."""

    def __init__(self, binary, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child's ends move above 4 first (`3<&4 4>&3` would lose one of them); bash, not
        # dash, takes fd numbers above 9.
        to_browser_r, from_browser_w = (self.high(to_browser_r), self.high(from_browser_w))
        # Chromium reads commands from fd 3 and writes replies and events to fd 4; the shell
        # puts the pipes' ends there.
        argv = [binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--user-data-dir=" + profile, "--remote-debugging-pipe",
                "about:blank"]
        self.process = subprocess.Popen(
            ["bash", "-c", 'exec "$@" 3<&%d 4>&%d' % (to_browser_r, from_browser_w), "bash", *argv],
            pass_fds=(to_browser_r, from_browser_w), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    @staticmethod
    def high(fd):
        """Returns a copy of a file descriptor numbered 10 or above, closing the original."""
        copy = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return copy

    def call(self, method, params=None, timeout=60):
        """Sends a command (to the page once opened) and returns its result."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError("%s: %s" % (method, reply["error"]))
                    return reply["result"]
            ready, _, _ = select.select([self.from_browser], [], [], 1)
            if ready:
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium exited")
                self.buffer += chunk
        raise RuntimeError(method + ": no answer")

    def open(self, url, width=1280, height=1500):
        """Opens a page at a size and waits for it to load."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        self.until("document.readyState === 'complete'", 30)

    def evaluate(self, expression):
        """Returns the value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def until(self, expression, seconds):
        """Waits until an expression is true in the page; returns whether it became true. A
        page in the middle of a navigation (after a form's submit) has no context to evaluate
        in: that is "not yet", not an error."""
        def holds():
            try:
                return self.evaluate(expression)
            except RuntimeError as error:
                if any(text in str(error) for text in NAVIGATING):
                    return False
                raise
        return wait_until(holds, seconds)

    def screenshot(self, path, height=0):
        """Saves the page as a PNG: the window, or its top `height` pixels."""
        params = {"format": "png"}
        if height:
            width = self.evaluate("document.documentElement.clientWidth")
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))

    def close(self):
        """Ends the browser."""
        try:
            self.session = None
            self.call("Browser.close", timeout=10)
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


STOCKFISH = "/usr/games/stockfish"
GLAURUNG = "/usr/games/glaurung"

# What Runtime.evaluate answers while the page navigates away.
NAVIGATING = ("Inspected target navigated or closed", "Execution context was destroyed",
              "Cannot find context with specified id")


def wait_until(condition, seconds, every=0.1):
    """Waits until condition() is true, checking it every `every` seconds, up to `seconds`;
    returns whether it became true."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)  # polling: the condition is a fact outside this process
    return True


def wait_for_file(path, process, seconds=20):
    """Waits until a file has content; returns it."""
    def written():
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return True
        if process.poll() is not None:
            raise RuntimeError("the coordinator exited")
        return False
    if not wait_until(written, seconds, 0.05):
        raise RuntimeError("no " + path)
    return open(path).read().strip()


def field(dom, name):
    """Returns the text of the element marked data-field=NAME in a dumped DOM."""
    match = re.search(r'data-field="%s">([^<]*)<' % name, dom)
    if not match:
        raise AssertionError("no field " + name)
    return html.unescape(match.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--screenshot", default="")
    parser.add_argument("--screenshot-games", type=int, default=0)
    args = parser.parse_args()
    browser = chromium()
    if not browser:
        if os.environ.get("CI") == "true":
            print("FAIL: no chromium (CI=true: `deploy/setup.sh test` installs it)")
            return 1
        print("SKIPPED: no chromium (apt-get install chromium)")
        return SKIP
    build = os.path.abspath(args.build)
    coordinator = os.path.join(build, "coordinator", "sparring-coordinator")
    worker = os.path.join(build, "worker", "sparring-worker")
    cli = os.path.join(build, "cli", "sparring")
    work = tempfile.mkdtemp(prefix="sparring-browser-")
    db = os.path.join(work, "db")
    processes = []
    try:
        tokens = {role: subprocess.run([coordinator, "token", "create", "--db", db, "--role", role],
                                       check=True, capture_output=True, text=True).stdout.strip()
                  for role in ("user", "worker")}
        log = open(os.path.join(work, "coordinator.log"), "w")
        server = subprocess.Popen(
            [coordinator, "serve", "--db", db, "--listen", "127.0.0.1:0", "--port-file",
             os.path.join(work, "port"), "--http-listen", "127.0.0.1:0", "--http-port-file",
             os.path.join(work, "http-port"), "--heartbeat-seconds", "2"],
            stdout=log, stderr=subprocess.STDOUT)
        processes.append(server)
        grpc_port = wait_for_file(os.path.join(work, "port"), server)
        http_port = wait_for_file(os.path.join(work, "http-port"), server)
        env = dict(os.environ, SPARRING_COORDINATOR="127.0.0.1:" + grpc_port,
                   SPARRING_TOKEN=tokens["user"])
        sparring = lambda *a: subprocess.run([cli, *a], check=True, env=env, capture_output=True,
                                             text=True).stdout

        def submit(*args):
            """Submits a run with the CLI; returns its id."""
            return re.search(r"run (\d+)", sparring("submit", *args)).group(1)

        def start_worker(name, *flags):
            """Starts a worker of one game at a time, logging to NAME.log."""
            processes.append(subprocess.Popen(
                [worker, "--coordinator", "127.0.0.1:" + grpc_port, "--token", tokens["worker"],
                 "--concurrency", "1", "--name", name, *flags],
                stdout=open(os.path.join(work, name + ".log"), "w"), stderr=subprocess.STDOUT))

        sparring("versions", "add", "base", "--description", "the default parameters")
        sparring("versions", "add", "knight-330", "--set", "KnightValueMg=330",
                 "--description", "<script>alert(1)</script> knights up")
        run = submit("knight-330", "base", "--games", "30000", "--tc", "nodes=300", "--elo0", "0",
                     "--elo1", "5", "--description", "browser test: a live SPRT run")
        # The second worker claims only the baseline instruction set: the run is played by two
        # CPU classes (issue 52), which its page breaks its result down by.
        start_worker("browser-worker-1")
        start_worker("browser-worker-2", "--isa-levels", "x86-64")
        base = "http://127.0.0.1:" + http_port

        def run_field(run_id, key):
            with urllib.request.urlopen(base + "/api/v1/runs/" + run_id) as answer:
                return json.load(answer)[key]

        def wait_for_games(wanted):
            """Waits until the run has at least `wanted` games."""
            if not wait_until(lambda: int(run_field(run, "games")) >= wanted, 120, 0.5):
                raise AssertionError("fewer than %d games after 120 s" % wanted)

        wait_for_games(1)

        profile = os.path.join(work, "profile")
        listing = browse(browser, profile, base + "/", "--dump-dom", wait_ms=3000)
        assert 'href="/runs/%s"' % run in listing, listing[:2000]
        assert "<script>alert(1)" not in listing
        # The live run's row says in a line that it would replay its book (its page says more).
        assert re.search(r'<div class="desc warn" title="[^"]*">Warning: up to 30000 games need '
                         r'15000 openings, and the book has 10000\.</div>', listing), \
            "no warning under the run in the list"

        page = Browser(browser, os.path.join(work, "profile-live"))
        try:
            page.open(base + "/runs/" + run)
            assert page.until("document.getElementById('llr-plot').dataset.drawn === 'true'", 20), \
                "the LLR plot did not draw"
            assert page.evaluate("document.querySelector('#llr-plot canvas') !== null"), "no canvas"
            # Up to 30,000 games at nodes=300 from the shipped book of 10,000 openings: the page
            # warns, above the figures, that the pairs past the book's end would replay games.
            warning = page.evaluate(
                "(() => { const p = document.querySelector('p.warning');"
                " return p && p.offsetHeight > 0 &&"
                " p.compareDocumentPosition(document.getElementById('run')) === 4 ? p.textContent : ''"
                " })()")
            assert "up to 30000 games need 15000 openings, and the book has 10000" in warning, \
                "no visible warning above the figures: %r" % warning
            games = "Number(document.querySelector('[data-field=games]').textContent" \
                    ".replace(/\\D/g, ''))"
            rendered = page.evaluate("Number(document.getElementById('run').dataset.games)")
            # Past the page as rendered and past the first live update (the one a new viewer
            # gets at once): the count must grow again while the page stays loaded.
            first = page.evaluate(games)
            started = time.time()
            updates = "Number(document.getElementById('run').dataset.updates || 0)"
            grew = page.until("%s > %d && %s >= 2" % (games, max(first, rendered), updates), 20)
            waited = time.time() - started
            live = page.evaluate(games)
            updates = page.evaluate(updates)
            points = page.evaluate("document.getElementById('llr-plot') && "
                                   "JSON.parse(document.getElementById('llr-data').textContent)"
                                   ".length")
            print("games: %d as rendered, %d when the plot drew, %d %.1f s later; %d live "
                  "updates, %d LLR points" % (rendered, first, live, waited, updates, points))
            assert grew, "the games count did not grow without a reload"
            # The workers' table follows too: its games add up to the run's, read at once.
            counted = page.evaluate(
                "[%s, [...document.querySelectorAll('#workers tbody tr td:nth-child(3)')]"
                ".reduce((sum, cell) => sum + Number(cell.textContent.replace(/\\D/g, '')), 0)]"
                % games)
            assert counted[0] == counted[1], "the workers' table shows %d games of %d" % (
                counted[1], counted[0])
            # So does the leases table: the leases' reported games move on (or leases end and
            # new ones start) while the page stays loaded.
            leases = "document.getElementById('leases').textContent"
            before = page.evaluate(leases)
            assert page.until("%s !== %s" % (leases, json.dumps(before)), 20), \
                "the leases table did not change without a reload: " + before
            # The page was loaded once: the navigation entry is still the first one.
            assert page.evaluate("performance.getEntriesByType('navigation').length === 1 && "
                                 "performance.getEntriesByType('navigation')[0].type === 'navigate'")
            if args.screenshot:
                height = 0
                if args.screenshot_games:
                    wait_for_games(args.screenshot_games)
                    page.open(base + "/runs/" + run, height=2400)
                    assert page.until("document.getElementById('llr-plot').dataset.drawn === "
                                      "'true'", 20), "the LLR plot did not draw"
                    height = page.evaluate(
                        "Math.ceil([...document.querySelectorAll('h2')].find("
                        "h => h.textContent === 'Specification').getBoundingClientRect().top)")
                else:
                    # Only the picture's looks: a few more points on the plots, asserted by
                    # nothing.
                    time.sleep(3)
                page.screenshot(os.path.abspath(args.screenshot), height)
                assert os.path.getsize(args.screenshot) > 10000
                print("screenshot:", args.screenshot)
        finally:
            page.close()

        # CPU classes (issue 52, item 2): the run's result per class of its workers, each
        # worker's row naming its class.
        if not wait_until(lambda: len(run_field(run, "classes")) == 2, 60, 0.5):
            raise AssertionError("not two CPU classes: %s" % run_field(run, "classes"))
        classes = sorted(c["cpu_class"] for c in run_field(run, "classes"))
        dom = browse(browser, os.path.join(work, "profile-classes"), base + "/runs/" + run,
                     "--dump-dom", wait_ms=2000)
        table = re.search(r'<h2 id="classes">CPU classes</h2><table class="grid" '
                          r'id="class-table">.*?<tbody>(.*?)</tbody>', dom, re.S)
        assert table, dom[:3000]
        rows = re.findall(r'<tr><td>([^<]*)</td><td class="num">(\d+)</td><td class="num">'
                          r'([^<]*)</td><td class="num">[^<]*</td><td class="num">([^<]*)</td>',
                          table.group(1))
        assert sorted(r[0] for r in rows) == classes, (rows, classes)
        assert any(r[0].endswith("-sse2") for r in rows), rows
        assert all(r[1] == "1" and "\u00b1" in r[3] for r in rows), rows
        workers = re.search(r"<h2>Workers</h2>(.*?)</table>", dom, re.S).group(1)
        for name in classes:
            assert "</td><td>%s</td>" % name in workers, workers[:2000]
        print("CPU classes on the run page: %s" % rows)

        # A run of an engine no worker offers waits, and its page says why, counted over the
        # workers, with the fix; the runs list calls it waiting (issue 51, item 1).
        if os.path.exists(GLAURUNG):
            sparring("versions", "add", "glaurung", "--uci", GLAURUNG)
            waiting = submit("glaurung", "base", "--kind", "fixed", "--games", "2", "--tc",
                             "10+0.1")
            dom = browse(browser, os.path.join(work, "profile-waiting"),
                         base + "/runs/" + waiting, "--dump-dom", wait_ms=2000)
            reason = re.search(r'<p class="waiting" id="waiting"><span data-field="waiting">'
                               r'([^<]*)</span></p>', dom)
            assert reason, dom[:3000]
            assert html.unescape(reason.group(1)).startswith(
                "Waiting: no connected worker offers /usr/games/glaurung (2 workers; start one "
                "with `--uci-engines /usr/games/glaurung`)"), reason.group(1)
            assert '<span data-field="state">waiting</span>' in dom, "the state is not waiting"
            listing = browse(browser, os.path.join(work, "profile-waiting"), base + "/",
                             "--dump-dom", wait_ms=2000)
            assert '<span class="badge active">waiting</span>' in listing, listing[:3000]
            sparring("stop", waiting)
            print("waiting: %s" % html.unescape(reason.group(1)))

        # A run whose UCI engine crashes at every move: its page counts the games lost by
        # that fault, per version and worker (issue 30, item 5).
        crasher = os.path.join(work, "crasher.sh")
        with open(crasher, "w") as script:
            script.write("#!/bin/sh\nexec bash %s crash\n" % os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "..", "match", "fake_uci_engine.sh"))
        os.chmod(crasher, 0o755)
        sparring("versions", "add", "crasher", "--uci", crasher)
        faulty = submit("crasher", "base", "--kind", "fixed", "--games", "4", "--tc", "nodes=300",
                        "--priority", "1")
        start_worker("crash-worker", "--uci-engines", crasher)
        if not wait_until(lambda: run_field(faulty, "state") != "RUN_STATE_ACTIVE", 120, 0.5):
            raise AssertionError("the crashing run did not end in 120 s")
        dom = browse(browser, os.path.join(work, "profile-faults"), base + "/runs/" + faulty,
                     "--dump-dom", wait_ms=2000)
        table = re.search(r"<h2>Games lost by faults</h2>(.*?)</table>", dom, re.S)
        assert table, dom[:3000]
        assert 'class="warning"' not in dom, "4 games from 10,000 openings warned"
        rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>"
                          r"<td[^>]*>(\d+)</td>", table.group(1))
        assert rows and all(r[0] == "crasher" and r[1] == "crash" for r in rows), rows
        lost = sum(int(r[3]) for r in rows)
        assert lost == 4, "the faults table counts %d crashes of 4 games: %s" % (lost, rows)
        print("faults table: %s" % rows)

        # A run whose engine crashes at its third move is paused by the fault storm (issue 51,
        # item 2); its page lists the faulty games, each linked to its evidence: the engine's
        # UCI exchange up to the fatal go and its stderr, hostile text escaped (item 3).
        if os.path.exists(STOCKFISH):
            evidence_engine = os.path.join(work, "crash-after-2.sh")
            with open(evidence_engine, "w") as script:
                script.write("#!/bin/sh\necho '<img src=x onerror=alert(1)>' >&2\n"
                             "exec bash %s crash-after-2\n" % os.path.join(
                                 os.path.dirname(os.path.abspath(__file__)), "..", "match",
                                 "fake_uci_engine.sh"))
            os.chmod(evidence_engine, 0o755)
            sparring("versions", "add", "crash-after-2", "--uci", evidence_engine)
            # No adjudication: a lopsided opening may be resigned before the crash, a game with
            # no fault.
            storm = submit("crash-after-2", "base", "--kind", "fixed", "--games", "40", "--tc",
                           "nodes=300", "--priority", "1", "--resign", "off", "--draw", "off")
            start_worker("evidence-worker", "--uci-engines", evidence_engine)
            evidence_worker = processes[-1]
            if not wait_until(lambda: run_field(storm, "state") != "RUN_STATE_ACTIVE", 120, 0.5):
                raise AssertionError("the crashing run was not paused in 120 s")
            # Its worker leaves: the runs below keep their pace.
            evidence_worker.terminate()
            evidence_worker.wait(timeout=30)
            assert run_field(storm, "state") == "RUN_STATE_PAUSED", run_field(storm, "state")
            dom = browse(browser, os.path.join(work, "profile-evidence"), base + "/runs/" + storm,
                         "--dump-dom", wait_ms=2000)
            section = re.search(r'<h2 id="faulty-games">Faulty games</h2>(.*?)</table>'
                                r'<table class="grid" id="faulty-games-list">(.*?)</table>',
                                dom, re.S)
            assert section, dom[:3000]
            # The state says it short; the banner gives the pause's sentence and the fix.
            assert '<span data-field="state">paused for faults</span>' in dom, dom[:3000]
            assert re.search(r'<p class="warning" id="pause"><strong>Paused for faults:</strong> '
                             r"version 'crash-after-2'", dom), dom[:3000]
            counts = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td[^>]*>(\d+)</td>"
                                r"<td[^>]*>(\d+)</td></tr>", section.group(1))
            assert counts and counts[0][0] == "crash-after-2" and counts[0][1] == "crash", counts
            assert int(counts[0][2]) >= 20 and int(counts[0][3]) == 10, counts
            links = re.findall(r'<a href="(/runs/%s/faults/(\d+))">transcript and stderr</a>'
                               % storm, section.group(2))
            assert len(links) == 10, section.group(2)[:2000]
            page = browse(browser, os.path.join(work, "profile-evidence"), base + links[0][0],
                          "--dump-dom", wait_ms=2000)
            transcript = re.search(r'<details open="" id="transcript">.*?<pre>(.*?)</pre>', page,
                                   re.S)
            stderr = re.search(r'<details open="" id="stderr">.*?<pre>(.*?)</pre>', page, re.S)
            assert transcript and stderr, page[:3000]
            assert transcript.group(1).rstrip().endswith("&gt; go nodes 300"), transcript.group(1)
            assert "fake-engine: assertion failed: move 3 after" in stderr.group(1), stderr.group(1)
            assert "&lt;img src=x onerror=alert(1)&gt;" in stderr.group(1), stderr.group(1)
            assert "<img src=x" not in page, "the engine's stderr reached the page unescaped"
            print("paused run %s: %s faulty games, evidence of game %s" %
                  (storm, counts[0][2], links[0][1]))
        elif os.environ.get("CI") == "true":
            raise AssertionError("no %s (CI=true: `deploy/setup.sh test` installs it)" % STOCKFISH)

        # Tuning runs' pages (issue 29): every parameter against games, each line named in the
        # legend under the plot, and the toggle to the change as a fraction of c -- for the
        # built-in engine's parameters and for a UCI engine's spin options (Debian's stockfish).
        tunes = [(submit("tune", "base", "--param", "KnightValueMg", "--param", "BishopValueMg",
                         "--games", "40", "--tc", "nodes=300", "--priority", "2"),
                  ["KnightValueMg", "BishopValueMg"], 250)]
        if os.path.exists(STOCKFISH):
            sparring("versions", "add", "sf", "--uci", STOCKFISH, "--option", "Hash=16")
            tunes.append((submit("tune", "sf", "--param", "Skill Level:10", "--param",
                                 "Move Overhead:10:0:100", "--games", "8", "--tc", "nodes=300",
                                 "--priority", "2"), ["Skill Level", "Move Overhead"], 9))
            start_worker("stockfish-worker", "--uci-engines", STOCKFISH)
        elif os.environ.get("CI") == "true":
            raise AssertionError("no %s (CI=true: `deploy/setup.sh test` installs it)" % STOCKFISH)
        else:
            print("no %s: the UCI engine's tuning page is not checked" % STOCKFISH)
        for tune, names, lowest in tunes:
            if not wait_until(lambda: run_field(tune, "state") != "RUN_STATE_ACTIVE", 120, 0.5):
                raise AssertionError("tuning run %s did not end in 120 s" % tune)
            assert run_field(tune, "state") == "RUN_STATE_FINISHED", run_field(tune, "result")
            plot = Browser(browser, os.path.join(work, "profile-tune-" + tune))
            try:
                plot.open(base + "/runs/" + tune)
                assert plot.until("document.getElementById('tune-plot').dataset.drawn === "
                                  "'true'", 20), "the tuning plot did not draw"
                legend = plot.evaluate("document.getElementById('tune-legend').textContent")
                assert all(name in legend for name in names), \
                    "the legend does not name every line: %r" % legend
                ylabel = "document.querySelector('#tune-plot .dygraph-ylabel').textContent"
                assert plot.evaluate(ylabel) == "value", plot.evaluate(ylabel)
                # The y axis: values (the knight starts at 315, the skill level at 10), then
                # changes over c, a small fraction of c after a few pairs.
                axis = ("Math.max(...[...document.querySelectorAll('#tune-plot "
                        ".dygraph-axis-label-y')].map(e => Math.abs(Number(e.textContent))))")
                values = plot.evaluate(axis)
                assert values >= lowest, "the value axis reaches %r" % values
                plot.evaluate("document.querySelector('input[name=tune-scale][value=share]')"
                              ".click()")
                assert plot.until("%s === 'change / c'" % ylabel, 10), \
                    "the toggle did not switch the plot to the change over c"
                shares = plot.evaluate(axis)
                assert shares < 5, "the change-over-c axis reaches %r" % shares
                print("tuning plot of run %s: legend %r, y axis up to %s as values and %s as "
                      "change / c" % (tune, legend, values, shares))
            finally:
                plot.close()

        # The run page's form (issue 31): a user logs in (the token in a form, never a URL),
        # changes the live run's priority and description, and the run's history shows who
        # changed what; the session's page holds the form, an anonymous one does not. The live
        # run is a new one: by now the SPRT run above may have ended (on a fast machine it
        # decides within the sections before), and a finished run takes no changes.
        run = submit("knight-330", "base", "--kind", "fixed", "--games", "30000", "--tc",
                     "nodes=300", "--description", "browser test: a live run")
        anonymous = browse(browser, os.path.join(work, "profile-anonymous"), base + "/runs/" + run,
                           "--dump-dom", wait_ms=2000)
        assert 'action="/runs/%s/modify"' % run not in anonymous
        assert 'href="/login"' in anonymous
        form = Browser(browser, os.path.join(work, "profile-form"))
        try:
            form.open(base + "/login")
            form.evaluate("document.querySelector('input[name=token]').value = %s; "
                          "document.querySelector('form.login').submit()" % json.dumps(tokens["user"]))
            assert form.until("location.pathname === '/' && document.readyState === 'complete'",
                              20), "the login did not lead to the runs list"
            assert form.evaluate("document.cookie") == "", "the session cookie is readable by script"
            form.open(base + "/runs/" + run)
            assert form.until("document.querySelector('form.modify') !== null", 10), \
                "no form on the run page of a logged-in owner"
            form.evaluate("document.querySelector('form.modify [name=priority]').value = '7'; "
                          "document.querySelector('form.modify [name=description]').value = "
                          "'changed in a browser <b>'; "
                          "document.querySelector('form.modify').submit()")
            assert form.until("document.querySelector('table.changes') !== null", 20), \
                "the run page shows no history after the form was sent"
            history = form.evaluate(
                "[...document.querySelectorAll('table.changes tr')].slice(1).map("
                "r => [...r.cells].slice(1).map(c => c.textContent))")
            print("history after the form: %s" % history)
            assert ["user", "priority", "0", "7"] in history, history
            assert ["user", "description", "browser test: a live run",
                    "changed in a browser <b>"] in history, history
            if args.screenshot:
                form.evaluate("document.querySelector('form.modify').scrollIntoView()")
                shot = os.path.splitext(os.path.abspath(args.screenshot))[0] + "-form.png"
                form.screenshot(shot)
                print("screenshot:", shot)
            # Its "Run again" button (issue 50): a new run like this one, whose page follows.
            form.open(base + "/runs/" + run)
            assert form.until("document.querySelector('form.again button') !== null", 10), \
                "no Run again button on the run page of a logged-in owner"
            form.evaluate("document.querySelector('form.again button').click()")
            assert form.until("/^\\/runs\\/\\d+$/.test(location.pathname) && "
                              "location.pathname !== '/runs/%s' && "
                              "document.readyState === 'complete'" % run, 20), \
                "Run again led to no new run's page"
            again = form.evaluate("location.pathname").rsplit("/", 1)[1]
        finally:
            form.close()
        with urllib.request.urlopen(base + "/api/v1/runs/" + again) as answer:
            copy = json.load(answer)
        assert copy["spec"]["origin_run_id"] == run, copy["spec"]
        assert copy["spec"]["owner"] == "user", copy["spec"]
        assert copy["spec"]["description"] == "changed in a browser <b>", copy["spec"]
        print("run again: run %s, like run %s" % (again, run))
        with urllib.request.urlopen(base + "/api/v1/runs/" + run) as answer:
            changed = json.load(answer)
        assert changed["spec"]["priority"] == 7, changed["spec"]
        assert changed["spec"]["owner"] == "user", changed["spec"]
        return 0
    except Exception:
        for name in sorted(os.listdir(work)):
            if name.endswith(".log"):
                sys.stderr.write("== %s\n%s\n" % (name, open(os.path.join(work, name)).read()[-3000:]))
        raise
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
