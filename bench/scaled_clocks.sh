#!/bin/bash
# Scaled clocks on unequal machines (BENCHMARKS.md, "Scaled clocks"): two uploaded builds of a
# real engine (Debian's Stockfish, the same file at full strength and at Skill Level 18) play a
# fixed-games match at a short clock on two workers of one game each. Worker "fast" has core
# 0 to itself; worker "slowed" shares core 1 with a CPU hog (taskset), so its engines get about
# half a core. The match is played twice from the same openings: once with scaled clocks
# (--reference-nps REF on the run) and once with the raw clock. For each worker and arm it
# prints the clock factor, the games, the mean search depth of the engines' moves (read from
# the PGN's {score/depth time} comments, per worker by the Site tag) and the worker's fit
# against the rest of the run (chi-squared p of the pentanomial counts, as `sparring show`).
# With scaling the slowed worker searches as deep as the fast one; without, it does not.
#
# Usage: bench/scaled_clocks.sh [GAMES] [TC]      (defaults: 200 games, 1+0.01)
# Environment: BUILD_DIR (default build/), REF reference nps (default: the fast worker's own
# speed, measured by a first short scaled run with wide bounds), WORK_DIR (default: a new
# temporary directory; database, logs and PGNs stay there).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${BUILD_DIR:-$root/build}")
games=${1:-200}
tc=${2:-1+0.01}
stockfish=/usr/games/stockfish
work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sparring-scaled.XXXXXX")}
mkdir -p "$work"
coordinator="$build/coordinator/sparring-coordinator"
worker="$build/worker/sparring-worker"
cli="$build/cli/sparring"
for binary in "$coordinator" "$worker" "$cli" "$stockfish"; do
    [ -x "$binary" ] || { echo "missing $binary" >&2; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }

db="$work/scaled.db"
rm -rf "$db" "$db-wal" "$db-shm" "$db.engines" "$work/port" "$work"/cache-*
pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
user_token=$("$coordinator" token create --db "$db" --role user --name bench-user)
worker_token=$("$coordinator" token create --db "$db" --role worker --name bench-worker)
taskset -c 0 "$coordinator" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" \
    --heartbeat-seconds 2 --pairs-per-thread 1 --min-clock-factor 0.05 --max-clock-factor 20 \
    >"$work/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { cat "$work/coordinator.log" >&2; exit 1; }
export SPARRING_COORDINATOR="127.0.0.1:$(cat "$work/port")" SPARRING_TOKEN="$user_token"

"$cli" versions add sf-full --engine-file "$stockfish" --option "Hash=16" \
    --description "Debian's Stockfish" >/dev/null
"$cli" versions add sf-skill18 --engine-file "$stockfish" \
    --option "Hash=16,Skill Level=18" --description "Debian's Stockfish at Skill Level 18" \
    >/dev/null

# The hog, then the workers: "fast" alone on core 0, "slowed" beside the hog on core 1.
taskset -c 1 sh -c 'while :; do :; done' &
pids+=($!)
for spec in fast:0 slowed:1; do
    name=${spec%%:*} core=${spec##*:}
    taskset -c "$core" "$worker" --token "$worker_token" --name "$name" --concurrency 1 \
        --accept-uploaded-engines --cache-dir "$work/cache-$name" --engine-sandbox off \
        --allow-unconfined-engines \
        --speed-every-seconds 600 >"$work/worker-$name.log" 2>&1 &
    pids+=($!)
done

# Plays one fixed-games run (its extra flags given) to its end; prints its id.
play() {
    local out id
    out=$("$cli" submit sf-full sf-skill18 --kind fixed --games "$1" --tc "$tc" \
          --book-order sequential --seed 1 "${@:2}")
    id=$(sed -E 's/^run ([0-9]+).*/\1/' <<<"$out")
    while [ "$("$cli" show "$id" --json | python3 -c 'import json, sys
print(json.load(sys.stdin)["state"])')" = RUN_STATE_ACTIVE ]; do sleep 2; done
    echo "$id"
}

if [ -z "${REF:-}" ]; then
    # The fast worker's speed: short scaled runs at a nominal reference until it has one.
    for _ in 1 2 3 4 5; do
        calibrate=$(play 4 --reference-nps 1000000)
        REF=$("$cli" workers --json | python3 -c '
import json, sys
for w in json.load(sys.stdin)["workers"]:
    if w["name"] == "fast" and w.get("speeds"):
        print(w["speeds"][0]["nps"])')
        [ -n "$REF" ] && break
    done
    [ -n "$REF" ] || { echo "the fast worker measured no speed" >&2; exit 1; }
    echo "reference: the fast worker's speed, $REF nps (run $calibrate)"
fi

scaled=$(play "$games" --reference-nps "$REF")
raw=$(play "$games")

# Per worker of a run: factor, games, mean depth, fit.
report() {
    local run=$1 arm=$2
    "$cli" export "$run" >"$work/run-$run.pgn"
    "$cli" show "$run" --json >"$work/run-$run.json"
    python3 - "$work/run-$run.pgn" "$work/run-$run.json" "$arm" <<'EOF'
import json, re, sys
pgn, status, arm = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
depths, games, factors = {}, {}, {}
for game in open(pgn).read().split("\n\n[Event ")[0:]:
    site = re.search(r'\[Site "([^"]*)"\]', game)
    if not site:
        continue
    name = site.group(1)
    games[name] = games.get(name, 0) + 1
    factor = re.search(r'\[ClockFactor "([^"]*)"\]', game)
    factors.setdefault(name, []).append(float(factor.group(1)) if factor else 1.0)
    depths.setdefault(name, []).extend(int(d) for d in re.findall(r"\{[-+#0-9.M]+/(\d+) ", game))
fits = {w["name"]: w for w in status.get("workers", [])}
for name in sorted(games):
    d = depths[name]
    fit = fits.get(name, {})
    p = fit.get("pentanomial", {})
    pairs = sum(int(p.get(k, 0)) for k in ("ll", "ld", "dd_wl", "wd", "ww"))
    score = (0.5 * int(p.get("ld", 0)) + int(p.get("dd_wl", 0)) + 1.5 * int(p.get("wd", 0)) +
             2 * int(p.get("ww", 0))) / max(1, 2 * pairs)
    print("%-6s %-7s factor %6.3f  games %4d  mean depth %5.2f  score %5.1f%%  fit p %s" % (
        arm, name, sum(factors[name]) / len(factors[name]), games[name],
        sum(d) / max(1, len(d)), 100 * score,
        "%.3g" % fit["p_value"] if "p_value" in fit else "-"))
print("%-6s Elo %+.1f +- %.1f over %d games" % (
    arm, status.get("elo", 0), (status.get("elo_high", 0) - status.get("elo_low", 0)) / 2,
    int(status["wins"]) + int(status["draws"]) + int(status["losses"])))
EOF
}
echo "tc $tc, $games games a run, reference $REF nps; work dir $work"
report "$scaled" scaled
report "$raw" raw
