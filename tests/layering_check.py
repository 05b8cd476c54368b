#!/usr/bin/env python3
"""Checks every #include of the tree against the layer order of docs/layers.md.

Usage: layering_check.py ROOT [--print-violations] [--print-edges]

An include is resolved as the compiler finds it: "x.h" and "../x.h" next to the including file
first, then from the root (the project's include directory), as <coordinator/x.h> is too; a
header that is no file of the tree and names no layer (a library's, the system's) is left alone.
Fails (exit 1) on an include of a folder the including file's folder may not use, unless the
include is listed as an exception, on an exception that no longer occurs, and on a folder a
line allows that no include of the unit uses (the layers list only the edges in use). With
--print-violations it prints every include against the order as exception lines and exits 0;
with --print-edges, every edge in use ("unit -> unit").
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".h", ".cc", ".hpp")
SKIPPED_DIRS = {".git", "node_modules"}


def read_blocks(path):
    """Returns the 'layers' and 'exceptions' fenced blocks of the document, as lines."""
    blocks = {}
    name = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if name is None:
            match = re.match(r"^```(layers|exceptions)\s*$", line)
            if match:
                name = match.group(1)
                blocks[name] = []
        elif line.startswith("```"):
            name = None
        elif line.strip():
            blocks[name].append(line.strip())
    if "layers" not in blocks or "exceptions" not in blocks:
        raise SystemExit("%s: needs a ```layers block and an ```exceptions block" % path)
    return blocks["layers"], blocks["exceptions"]


def parse_layers(lines):
    """Returns {unit: set of units it may include, or None for anything}, in order."""
    allowed = {}
    for line in lines:
        unit, _, uses = line.partition(":")
        uses = uses.split()
        if uses == ["*"]:
            allowed[unit.strip()] = None
        else:
            allowed[unit.strip()] = set(u for u in uses if u != "-")
    return allowed


def unit_of(path, units):
    """Returns the layer a file (or an included header) belongs to, or None for none."""
    if path in units:
        return path
    parts = path.split("/")
    if path.startswith("sparring/"):  # generated protocol headers
        return "proto"
    for length in range(len(parts) - 1, 0, -1):
        prefix = "/".join(parts[:length])
        if prefix in units:
            return prefix
    return None


INCLUDE = re.compile(r'\s*#\s*include\s+(?:"([^"]+)"|<([^>]+)>)')


def resolve(root, relative, header, quoted):
    """Returns the included header as a path from the root, as the compiler finds it."""
    if quoted:
        beside = os.path.normpath(os.path.join(os.path.dirname(relative), header))
        if not beside.startswith("..") and os.path.isfile(os.path.join(root, beside)):
            return beside.replace(os.sep, "/")
    return os.path.normpath(header).replace(os.sep, "/")


def includes(root):
    """Yields (file, included header as a path from the root) for every include of the tree."""
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIPPED_DIRS and not d.startswith("build"))
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as source:
                for line in source:
                    match = INCLUDE.match(line)
                    if match:
                        quoted = match.group(1) is not None
                        header = match.group(1) if quoted else match.group(2)
                        yield relative, resolve(root, relative, header, quoted)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    layers, exception_lines = read_blocks(os.path.join(root, "docs", "layers.md"))
    allowed = parse_layers(layers)
    exceptions = set()
    for line in exception_lines:
        source, arrow, header = line.partition(" -> ")
        if not arrow:
            raise SystemExit("docs/layers.md: an exception is 'FILE -> HEADER', not '%s'" % line)
        exceptions.add((source.strip(), header.strip()))
    violations = []
    unplaced = set()
    used = set()
    seen = 0
    for source, header in includes(root):
        seen += 1
        source_unit = unit_of(source, allowed)
        if source_unit is None:
            unplaced.add(source.split("/")[0])
            continue
        uses = allowed[source_unit]
        if uses is None:
            continue
        header_unit = unit_of(header, allowed)
        if header_unit is None or header_unit == source_unit:
            continue  # a header of no layer (a library's), or of its own folder
        used.add((source_unit, header_unit))
        if header_unit not in uses:
            violations.append((source, header, source_unit, header_unit))
    if "--print-edges" in sys.argv:
        for source_unit, header_unit in sorted(used):
            print("%s -> %s" % (source_unit, header_unit))
        return 0
    if "--print-violations" in sys.argv:
        for source, header, _, _ in violations:
            print("%s -> %s" % (source, header))
        return 0
    failed = False
    for source, header, source_unit, header_unit in violations:
        if (source, header) in exceptions:
            continue
        failed = True
        print("%s includes %s: %s may not use %s (docs/layers.md)"
              % (source, header, source_unit, header_unit))
    found = set((s, h) for s, h, _, _ in violations)
    for source, header in sorted(exceptions - found):
        failed = True
        print("docs/layers.md lists %s -> %s, which no longer occurs: remove the line"
              % (source, header))
    for unit, uses in allowed.items():
        for header_unit in sorted(uses or ()):
            if (unit, header_unit) not in used:
                failed = True
                print("docs/layers.md lets %s use %s, which no include of it does: remove it"
                      % (unit, header_unit))
    for folder in sorted(unplaced):
        failed = True
        print("%s/ has sources but no line in docs/layers.md" % folder)
    if failed:
        return 1
    print("%d includes follow docs/layers.md: %d folder edges allowed, all in use (%d listed "
          "exceptions)" % (seen, sum(len(u) for u in allowed.values() if u is not None),
                           len(exceptions)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
