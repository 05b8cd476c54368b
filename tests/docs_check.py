#!/usr/bin/env python3
"""Checks that docs/ documents exactly the values the code defines.

    docs_check.py flags|metrics|schema --source DIR --coordinator BIN --worker BIN --cli BIN

flags    every flag that `--help` lists for sparring-coordinator's commands, sparring-worker and
         each `sparring` command (subcommands included) has a row, with the same default, in
         a flag table of docs/, and every row names a flag the binary lists.
metrics  every metric family a real coordinator serves on --metrics-listen (with an active
         run, so that the per-run gauges have samples) has a row in docs/operations.md, with
         its type, and every row names a served family.
schema   every table and view of a freshly migrated database has a row in docs/database.md,
         and every row names one; a view's documented columns are exactly its columns.

How docs/ marks its tables:
  flags    a Markdown table preceded by `<!-- flags: BINARY [COMMAND][, ...] -->`, e.g.
           `<!-- flags: sparring-coordinator serve -->` or `<!-- flags: sparring runs, sparring
           show -->`; its header has the columns `flag` and `default`, and optionally
           `variable` (then it must be SPARRING_ and the flag in upper case, '-' as '_').
           One flag per row, in backticks (`--lease-seconds N`). Where --help shows a default
           (CLI11's `[60]`, or `(default 60)` in the description), each shown default must
           appear as a word of the default cell (write numbers as --help does: 20000).
  metrics  a table in docs/operations.md whose first column is `metric`: metric names alone in
           backticks (labels in another column), and a `type` column (gauge, counter, ...).
  schema   tables in docs/database.md whose first column is `table` or `view`, names in
           backticks; a `columns` column in a view table lists its columns in backticks.
"""
import argparse
import glob
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

# The coordinator's commands, in case its top-level --help lists them only in usage lines.
COORDINATOR_COMMANDS = ("serve", "token", "backup", "gc-engines")
HELP_FLAGS = {"help"}


class Table:
    """A Markdown table of a docs page: its marker comment, header, rows and line numbers."""

    def __init__(self, path, line, marker, header, rows):
        self.path, self.line, self.marker, self.header, self.rows = path, line, marker, header, rows

    def where(self, row_line=None):
        """Returns 'docs/page.md:LINE' for the table or one of its rows."""
        return f"{os.path.relpath(self.path, SOURCE)}:{row_line or self.line}"

    def column(self, name):
        """Returns the index of a header column, or None."""
        for i, cell in enumerate(self.header):
            if cell.strip("` ").lower() == name:
                return i
        return None


SOURCE = "."


def split_row(line):
    """Returns the cells of a Markdown table row (an escaped \\| stays inside its cell)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def read_tables(path):
    """Returns every table of a Markdown file with the HTML comment just above it, if any."""
    if not os.path.exists(path):
        raise SystemExit(f"FAIL: {os.path.relpath(path, SOURCE)} is missing")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    tables, i, fenced = [], 0, False
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not lines[i].lstrip().startswith("|"):
            i += 1
            continue
        start = i
        block = []
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            block.append((i + 1, lines[i]))
            i += 1
        marker = None
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            m = re.fullmatch(r"\s*<!--\s*(.*?)\s*-->\s*", lines[j])
            if m:
                marker = m.group(1)
        header = split_row(block[0][1])
        rows = [(n, split_row(text)) for n, text in block[2:]]
        tables.append(Table(path, start + 1, marker, header, rows))
    return tables


def docs_tables():
    """Returns the tables of every page under docs/."""
    tables = []
    for path in sorted(glob.glob(os.path.join(SOURCE, "docs", "*.md"))):
        tables.extend(read_tables(path))
    return tables


NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def backticked(cell):
    """Returns the names a cell gives in backticks (`name`), in order."""
    return [quoted for quoted in re.findall(r"`([^`]*)`", cell) if NAME.fullmatch(quoted)]


# ---- flags ------------------------------------------------------------------------------------

FLAG_LINE = re.compile(r"^\s*(?:-[A-Za-z0-9],\s*)?--([A-Za-z0-9][A-Za-z0-9_-]*)(.*)$")
CLI11_HEADER = re.compile(r"^\s*options:\s*$", re.IGNORECASE)
BRACKET_DEFAULT = re.compile(r"^[ =]?(?:[^\s\[]+\s+)?\[([^\]]*)\]")
TEXT_DEFAULT = re.compile(r"\(default (\S+?)(?=[;)]|: )")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_,.:|+-]*$|\.\.\.|…")
SECTION = re.compile(r"^\s*(sub)?commands:?\s*$", re.IGNORECASE)
# A command entry is indented by a few spaces; deeper lines continue a wrapped description.
ENTRY = re.compile(r"^ {1,4}([a-z][a-z0-9-]*)(\s|$)")


def run_help(argv):
    """Returns the text a command prints for --help; fails when it exits non-zero."""
    result = subprocess.run([*argv, "--help"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: `{' '.join(argv)} --help` exited with {result.returncode}:\n"
                         f"{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def equals_defaults(rest):
    """Returns the possible defaults of CLI11 2.1's `--name TYPE=DEFAULT` (a type name may hold
    '=' itself, so every split is a candidate), leaving out what looks like a placeholder."""
    words = rest.split()
    if not words or "=" not in words[0] or rest[:1] not in (" ", "="):
        return set()
    token = words[0]
    candidates = set()
    for i, char in enumerate(token):
        if char == "=" and i + 1 < len(token):
            value = token[i + 1:].strip('"')
            if not PLACEHOLDER.search(value):
                candidates.add(value)
    return candidates


def help_flags(text):
    """Returns {flag: [set of acceptable values, one set per default shown]} of a --help text:
    the hand-written format (`  --name VALUE   text (default 60)`), or CLI11's (`  -n,--name
    TYPE=60  text` in 2.1, `  -n,--name TYPE [60]  text` later; the description may follow on
    the next line)."""
    lines = text.split("\n")
    cli11 = any(CLI11_HEADER.match(line) for line in lines)
    flags, current = {}, None
    for line in lines:
        m = FLAG_LINE.match(line)
        if not m:
            if current is not None and line.strip() and line[:1].isspace():
                current.extend({v.strip('"')} for v in TEXT_DEFAULT.findall(line)
                               if not v.startswith("$"))
            else:
                current = None
            continue
        name, rest = m.group(1), m.group(2)
        if name in HELP_FLAGS:
            current = None
            continue
        current = flags.setdefault(name, [])
        bracket = BRACKET_DEFAULT.match(rest)
        if bracket and bracket.group(1):
            current.append({bracket.group(1).strip('"')})
        elif cli11:
            candidates = equals_defaults(rest)
            if candidates:
                current.append(candidates)
        current.extend({v.strip('"')} for v in TEXT_DEFAULT.findall(rest) if not v.startswith("$"))
    return flags


def help_commands(text):
    """Returns the command names listed under a 'commands:' or 'subcommands:' heading."""
    names, inside = [], False
    for line in text.split("\n"):
        if SECTION.match(line):
            inside = True
            continue
        if inside:
            m = ENTRY.match(line)
            if not m:
                inside = False
                continue
            names.append(m.group(1))
    return names


def command_flags(argv, depth=0):
    """Returns {flag: [sets of acceptable defaults]} of a command and all its subcommands."""
    text = run_help(argv)
    merged = {}
    for name, shown in help_flags(text).items():
        add_defaults(merged.setdefault(name, []), shown)
    if depth < 2:
        for sub in help_commands(text):
            for name, shown in command_flags([*argv, sub], depth + 1).items():
                add_defaults(merged.setdefault(name, []), shown)
    return merged


def add_defaults(into, shown):
    """Adds default requirements to a flag's list, each once."""
    for requirement in shown:
        if requirement not in into:
            into.append(requirement)


def binary_flags(args):
    """Returns {'BINARY [COMMAND]': {flag: defaults}} for every command the docs must cover."""
    found = {}
    coordinator_help = run_help([args.coordinator])
    commands = list(COORDINATOR_COMMANDS)
    commands += [c for c in help_commands(coordinator_help) if c not in commands]
    for command in commands:
        found[f"sparring-coordinator {command}"] = command_flags([args.coordinator, command])
    found["sparring-worker"] = command_flags([args.worker])
    cli_commands = help_commands(run_help([args.cli]))
    if not cli_commands:
        raise SystemExit("FAIL: `sparring --help` lists no commands (expected a 'commands:' or "
                         "'SUBCOMMANDS:' section); docs_check.py cannot find them")
    for command in cli_commands:
        found[f"sparring {command}"] = command_flags([args.cli, command])
    return found


def words(cell):
    """Returns the words of a table cell, split at spaces, commas, brackets and quotes."""
    return [w for w in re.split(r"[\s,;()`'\"|\[\]]+", cell) if w]


def same_value(a, b):
    """Returns whether two default values are equal, as text or as numbers."""
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def check_flags(args):
    """Compares the binaries' flags and defaults with the flag tables of docs/."""
    errors = []
    binaries = binary_flags(args)
    documented = {key: {} for key in binaries}
    for table in docs_tables():
        if not table.marker or not table.marker.startswith("flags:"):
            continue
        keys = [k.strip() for k in table.marker[len("flags:"):].split(",") if k.strip()]
        flag_col, default_col = table.column("flag"), table.column("default")
        variable_col = table.column("variable")
        if flag_col is None or default_col is None:
            errors.append(f"{table.where()}: a flag table needs the columns 'flag' and 'default'")
            continue
        for key in keys:
            if key not in binaries:
                errors.append(f"{table.where()}: the table is marked for `{key}`, which is not a "
                              f"command of the binaries (known: {', '.join(sorted(binaries))})")
        for line, cells in table.rows:
            if len(cells) <= max(flag_col, default_col):
                errors.append(f"{table.where(line)}: the row has too few cells")
                continue
            names = re.findall(r"--([A-Za-z0-9][A-Za-z0-9_-]*)", cells[flag_col])
            if len(names) != 1:
                errors.append(f"{table.where(line)}: a row of a flag table names exactly one "
                              f"--flag in its 'flag' column (found {len(names)})")
                continue
            name = names[0]
            if variable_col is not None and variable_col < len(cells):
                expected = "SPARRING_" + name.upper().replace("-", "_")
                if expected not in words(cells[variable_col]):
                    errors.append(f"{table.where(line)}: --{name}: the variable column should "
                                  f"say `{expected}`")
            for key in keys:
                if key in binaries:
                    documented[key].setdefault(name, []).append((table, line,
                                                                 cells[default_col]))
    for key, flags in sorted(binaries.items()):
        rows = documented[key]
        if not any(rows.values()) and flags:
            errors.append(f"docs/: no flag table for `{key}`; add one preceded by "
                          f"`<!-- flags: {key} -->` with a row for each of: "
                          + ", ".join(f"--{f}" for f in sorted(flags)))
            continue
        for name in sorted(set(flags) - set(rows)):
            hint = (f" (--help shows default {describe(flags[name])})" if flags[name] else "")
            errors.append(f"docs/: `{key} --{name}` is not documented{hint}; add a row to "
                          f"the flag table of `{key}` ({rows_where(rows)})")
        for name in sorted(set(rows) - set(flags)):
            for table, line, _ in rows[name]:
                errors.append(f"{table.where(line)}: `{key} --{name}` is documented but "
                              f"`{key} --help` does not list it; remove the row or rename it")
        for name in sorted(set(rows) & set(flags)):
            for table, line, cell in rows[name]:
                missing = [r for r in flags[name]
                           if not any(same_value(d, w) for d in r for w in words(cell))]
                if missing:
                    errors.append(f"{table.where(line)}: `{key} --{name}`: --help shows default "
                                  f"{describe(missing)}, the default column says '{cell}'")
    return errors


def describe(requirements):
    """Returns defaults for a message: '60', or '1 or 1000' where --help was ambiguous."""
    return ", ".join(" or ".join(sorted(r)) for r in requirements)


def rows_where(rows):
    """Returns where the flag table(s) of a command are, for a message."""
    places = sorted({table.where() for entries in rows.values() for table, _, _ in entries})
    return ", ".join(places) if places else "none yet"


# ---- a real coordinator -----------------------------------------------------------------------

def free_port():
    """Returns a TCP port of 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Coordinator:
    """A coordinator serving a temporary database on 127.0.0.1, stopped with SIGTERM."""

    def __init__(self, binary, directory, metrics_port=None):
        self.binary, self.db = binary, os.path.join(directory, "docs-check.db")
        port_file = os.path.join(directory, "port")
        argv = [binary, "serve", "--db", self.db, "--listen", "127.0.0.1:0",
                "--port-file", port_file]
        if metrics_port:
            argv += ["--metrics-listen", f"127.0.0.1:{metrics_port}"]
        self.log = open(os.path.join(directory, "coordinator.log"), "w+")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"FAIL: the coordinator did not start: {' '.join(argv)}\n"
                                 + self.output())
            time.sleep(0.05)  # polls the port file the coordinator writes once it listens
        self.address = f"127.0.0.1:{open(port_file).read().strip()}"

    def output(self):
        """Returns what the coordinator has written so far."""
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        """Stops the coordinator and waits for it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run(argv, what):
    """Runs a command and returns its standard output; fails with its output otherwise."""
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise SystemExit(f"FAIL: {what}: `{' '.join(argv)}` exited with {result.returncode}:\n"
                         f"{result.stdout}{result.stderr}")
    return result.stdout


# ---- metrics ----------------------------------------------------------------------------------

SUFFIXES = ("_bucket", "_sum", "_count", "_created", "_total", "_info")


def served_metrics(text):
    """Returns {family: type} of a Prometheus text exposition (untyped samples included)."""
    families = {}
    for line in text.split("\n"):
        m = re.match(r"#\s*TYPE\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s+(\S+)", line)
        if m:
            families[m.group(1)] = m.group(2)
    for line in text.split("\n"):
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)[\s{]", line)
        if not m or line.startswith("#"):
            continue
        name = m.group(1)
        if name in families:
            continue
        base = next((name[: -len(s)] for s in SUFFIXES if name.endswith(s)
                     and name[: -len(s)] in families), None)
        if base is None:
            families[name] = "untyped"
    return families


def scrape(args, directory):
    """Starts a coordinator, gives it an active run, and returns its /metrics text."""
    port = free_port()
    coordinator = Coordinator(args.coordinator, directory, metrics_port=port)
    try:
        token_out = run([args.coordinator, "token", "create", "--db", coordinator.db,
                         "--role", "user", "--name", "docs-check"], "creating a user token")
        tokens = re.findall(r"\bspu_[A-Za-z0-9_-]+", token_out)
        if not tokens:
            raise SystemExit(f"FAIL: no spu_ token in the output of token create:\n{token_out}")
        remote = ["--coordinator", coordinator.address, "--token", tokens[-1]]
        run([args.cli, "versions", "add", "docs-a", "--bench", "1", *remote], "adding a version")
        run([args.cli, "versions", "add", "docs-b", "--preset", "seed", "--bench", "1", *remote],
            "adding a version")
        run([args.cli, "submit", "docs-a", "docs-b", "--tc", "nodes=100", *remote],
            "submitting a regression run")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            return reply.read().decode()
    finally:
        coordinator.stop()


def check_metrics(args):
    """Compares the metric families a real coordinator serves with docs/operations.md."""
    errors = []
    with tempfile.TemporaryDirectory(prefix="sparring-docs-") as directory:
        served = served_metrics(scrape(args, directory))
    page = os.path.join(SOURCE, "docs", "operations.md")
    documented = {}
    for table in read_tables(page):
        if table.column("metric") != 0:
            continue
        type_col = table.column("type")
        for line, cells in table.rows:
            names = backticked(cells[0])
            if not names:
                errors.append(f"{table.where(line)}: the row names no metric in backticks")
            for name in names:
                kind = cells[type_col].strip("` ") if type_col is not None else None
                documented.setdefault(name, []).append((table, line, kind))
    if not documented:
        errors.append(f"{os.path.relpath(page, SOURCE)}: no table whose first column is 'metric'")
    for name in sorted(set(served) - set(documented)):
        errors.append(f"docs/operations.md: the coordinator serves `{name}` ({served[name]}), "
                      f"which the metrics table does not document; add a row")
    for name in sorted(set(documented) - set(served)):
        for table, line, _ in documented[name]:
            errors.append(f"{table.where(line)}: `{name}` is documented but the coordinator "
                          f"does not serve it; remove or rename the row")
    for name in sorted(set(documented) & set(served)):
        for table, line, kind in documented[name]:
            if kind is not None and kind != served[name]:
                errors.append(f"{table.where(line)}: `{name}` is a {served[name]}, the table "
                              f"says '{kind}'")
    return errors


# ---- schema -----------------------------------------------------------------------------------

def migrated_schema(args, directory):
    """Returns {name: (type, [columns])} of the tables and views of a fresh database."""
    coordinator = Coordinator(args.coordinator, directory)
    coordinator.stop()
    connection = sqlite3.connect(coordinator.db)
    try:
        objects = connection.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%'").fetchall()
        return {name: (kind, [c[1] for c in connection.execute(f'PRAGMA table_info("{name}")')])
                for name, kind in objects}
    finally:
        connection.close()


def check_schema(args):
    """Compares the tables and views of a migrated database with docs/database.md."""
    errors = []
    with tempfile.TemporaryDirectory(prefix="sparring-docs-") as directory:
        schema = migrated_schema(args, directory)
    page = os.path.join(SOURCE, "docs", "database.md")
    documented = {}
    for table in read_tables(page):
        kind = table.header[0].strip("` ").lower() if table.header else ""
        if kind not in ("table", "view"):
            continue
        columns_col = table.column("columns")
        for line, cells in table.rows:
            names = backticked(cells[0])
            if not names:
                errors.append(f"{table.where(line)}: the row names no {kind} in backticks")
            columns = None
            if columns_col is not None and columns_col < len(cells):
                columns = backticked(cells[columns_col])
            for name in names:
                documented.setdefault(name, []).append((table, line, kind, columns))
    if not documented:
        errors.append("docs/database.md: no table whose first column is 'table' or 'view'")
    for name in sorted(set(schema) - set(documented)):
        kind, columns = schema[name]
        errors.append(f"docs/database.md: the {kind} `{name}` ({', '.join(columns)}) of a "
                      f"freshly migrated database is not documented; add a row")
    for name in sorted(set(documented) - set(schema)):
        for table, line, kind, _ in documented[name]:
            errors.append(f"{table.where(line)}: the {kind} `{name}` is documented but a freshly "
                          f"migrated database has no such table or view; remove or rename it")
    for name in sorted(set(documented) & set(schema)):
        actual_kind, actual_columns = schema[name]
        for table, line, kind, columns in documented[name]:
            if kind != actual_kind:
                errors.append(f"{table.where(line)}: `{name}` is a {actual_kind}, documented "
                              f"as a {kind}")
            if columns is not None and columns != actual_columns:
                errors.append(f"{table.where(line)}: the columns of `{name}` are "
                              f"{', '.join(actual_columns)}; the row lists "
                              f"{', '.join(columns) or 'none'}")
    return errors


def main():
    global SOURCE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", choices=["flags", "metrics", "schema"])
    parser.add_argument("--source", required=True)
    parser.add_argument("--coordinator", required=True)
    parser.add_argument("--worker", required=True)
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    SOURCE = os.path.abspath(args.source)
    errors = {"flags": check_flags, "metrics": check_metrics, "schema": check_schema}[args.part](
        args)
    for error in errors:
        print(f"FAIL: {error}")
    if errors:
        print(f"{len(errors)} difference(s) between docs/ and the code ({args.part})")
        return 1
    print(f"OK: docs/ matches the code ({args.part})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
