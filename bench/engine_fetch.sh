#!/usr/bin/env bash
# Engines fetched by URL (issue 53, item 4; BENCHMARKS.md): one coordinator on 127.0.0.1 with
# its HTTP server, one uploaded engine file of MB megabytes (random bytes), and CLIENTS
# simulated workers (a process each) fetching it at once, first over gRPC (FetchEngine), then
# over the coordinator's HTTP (/engines/<sha256>), then from an external base (python3's
# http.server on 127.0.0.1 standing in for an object store: --engine-base-url), with the
# worker's own fetch code (sparring-bench-engine-fetch). Prints per transport the wall time
# until every client has the whole file and the coordinator's CPU time meanwhile
# (/proc/PID/stat utime+stime), in one run.
#   bench/engine_fetch.sh [BUILD_DIR] [--clients 50] [--mb 100]
set -euo pipefail
build=$(cd "$(dirname "$0")/.." && pwd)/build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    build=$1
    shift
fi
clients=50
mb=100
while [ $# -gt 0 ]; do
    case $1 in
        --clients) clients=$2; shift 2 ;;
        --mb) mb=$2; shift 2 ;;
        *) echo "usage: $0 [BUILD_DIR] [--clients N] [--mb N]" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
coordinator=
store=
trap '[ -n "$coordinator" ] && kill "$coordinator" 2>/dev/null; [ -n "$store" ] && kill "$store" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
tool="$build/coordinator/sparring-coordinator"
db="$work/fetch.db"
user=$("$tool" token create --db "$db" --role user)
worker=$("$tool" token create --db "$db" --role worker)
head -c "$((mb * 1000 * 1000))" /dev/urandom > "$work/engine.bin"
"$tool" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" \
    --http-listen 127.0.0.1:0 --http-port-file "$work/http-port" \
    2>"$work/coordinator.log" &
coordinator=$!
mkdir "$work/store"
ln "$work/engine.bin" "$work/store/$(sha256sum "$work/engine.bin" | cut -d' ' -f1)"
store_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/store" "$store_port" \
    >"$work/store.log" 2>&1 &
store=$!
for _ in $(seq 100); do [ -s "$work/port" ] && [ -s "$work/http-port" ] && break; sleep 0.1; done
echo "== $clients clients fetching one $mb MB engine file at once (coordinator pid $coordinator, $(nproc) cores)"
"$build/bench/sparring-bench-engine-fetch" --coordinator "127.0.0.1:$(cat "$work/port")" \
    --http-port "$(cat "$work/http-port")" --user-token "$user" --worker-token "$worker" \
    --file "$work/engine.bin" --coordinator-pid "$coordinator" --clients "$clients" \
    --transports grpc,http,external --external-url "http://127.0.0.1:$store_port"
echo "== served, by the coordinator's log: $(grep -c 'transport=grpc' "$work/coordinator.log") over gRPC, $(grep -c 'transport=http' "$work/coordinator.log") over HTTP"
