#!/bin/bash
# A test-only UCI engine that reports how it was started, then logs every command it reads:
#   cwd=DIR, env:NAME=VALUE per variable, limit_as_kb=N, limit_cpu_s=N, pid=N, then in:LINE
# Usage: probe_engine.sh LOG [bench]; with "bench" it prints a node count (to stderr) and ends.
log=$1
{
    echo "cwd=$(pwd)"
    env | sed 's/^/env:/'
    echo "limit_as_kb=$(ulimit -v)"
    echo "limit_cpu_s=$(ulimit -t)"
    echo "pid=$$"
} >> "$log"
if [ "$2" = bench ]; then
    echo "Nodes searched: 4242" >&2
    exit 0
fi
while IFS= read -r line; do
    echo "in:$line" >> "$log"
    case "$line" in
    uci)
        echo "id name probe"
        echo "uciok"
        ;;
    isready) echo "readyok" ;;
    quit) exit 0 ;;
    esac
done
