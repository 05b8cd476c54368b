"""A UCI engine process driven line by line, for the bench scripts."""

import queue
import subprocess
import threading
import time


class UciEngine:
    """One engine process: the uci handshake and options at start, then lines on demand."""

    def __init__(self, command, options=None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.name = command[0]
        for line in self.wait_for("uciok", 10):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
        for name, value in (options or {}).items():
            self.send(f"setoption name {name} value {value}")
        self.sync()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, prefix, timeout):
        """Returns the lines read up to the first that starts with prefix."""
        lines = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise RuntimeError(f"{self.proc.args[0]} exited before '{prefix}'")
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"no '{prefix}' from {self.proc.args[0]} within {timeout} s")

    def sync(self):
        """Waits until the engine has handled everything sent so far."""
        self.send("isready")
        self.wait_for("readyok", 10)

    def close(self):
        self.send("quit")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
