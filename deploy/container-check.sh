#!/usr/bin/env bash
# Builds the image from deploy/Dockerfile with podman and plays a run through real containers:
# a coordinator and two workers (host network, bound to 127.0.0.1) play a fixed-games run to
# the end, the stored games are counted in the coordinator's database, and the containers are
# removed. No registry is needed: the Debian 12 base image is made from Debian's archive with
# mmdebstrap and imported under the name `FROM debian:12` resolves to.
#   deploy/container-check.sh [GAMES]        (default 20; exit 77 when podman is missing)
# Environment: SPARRING_CHECK_IMAGE (default localhost/sparring:check) names the built image.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
games=${1:-20}
image=${SPARRING_CHECK_IMAGE:-localhost/sparring:check}
base=docker.io/library/debian:12
for tool in podman runc mmdebstrap; do
    if ! command -v "$tool" >/dev/null; then
        echo "container-check: skipped, $tool is not installed (deploy/setup.sh bench installs it)"
        exit 77
    fi
done

work=$(mktemp -d)
name=sparring-check-$$
# On machines without systemd or cgroup delegation podman's default ulimits cannot be set.
printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
export CONTAINERS_CONF=$work/containers.conf
pod=(podman --runtime runc)
started=$(date +%s)

# Removes the containers and the scratch directory, whatever happened.
cleanup() {
    "${pod[@]}" rm -f -v "$name-coordinator" "$name-worker-1" "$name-worker-2" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# Prints the seconds since the check started, before a step's description.
step() { echo "container-check: [$(($(date +%s) - started)) s] $*"; }

if ! "${pod[@]}" image exists "$base"; then
    step "making $base from Debian's archive (mmdebstrap)"
    mmdebstrap --quiet --variant=minbase bookworm "$work/base.tar"
    "${pod[@]}" import --quiet "$work/base.tar" "$base" >/dev/null
    rm -f "$work/base.tar"
fi

step "building $image from deploy/Dockerfile"
"${pod[@]}" build --network host -f "$root/deploy/Dockerfile" -t "$image" "$root" >"$work/build.log" 2>&1 || {
    tail -n 40 "$work/build.log"
    echo "container-check: FAILED: the image did not build" >&2
    exit 1
}

step "starting the coordinator container"
db=/var/lib/sparring/sparring.db
"${pod[@]}" run -d --network host --name "$name-coordinator" "$image" \
    sparring-coordinator serve --db "$db" --listen 127.0.0.1:0 \
    --port-file /var/lib/sparring/port --heartbeat-seconds 2 --lease-seconds 20 >/dev/null
in_coordinator() { "${pod[@]}" exec "$name-coordinator" "$@"; }
for _ in $(seq 100); do
    in_coordinator test -s /var/lib/sparring/port 2>/dev/null && break
    sleep 0.2
done
port=$(in_coordinator cat /var/lib/sparring/port)
address=127.0.0.1:$port
user_token=$(in_coordinator sparring-coordinator token create --db "$db" --role user --name check)
worker_token=$(in_coordinator sparring-coordinator token create --db "$db" --role worker --name check)
cli() { in_coordinator sparring "$@" --coordinator "$address" --token "$user_token"; }

cli versions add a >/dev/null
cli versions add b --set KnightValueMg=200,KnightValueEg=200 >/dev/null
cli submit a b --kind fixed --games "$games" --tc nodes=300 >/dev/null
sql() { in_coordinator sqlite3 "$db" "$1"; }
run=$(sql "SELECT max(id) FROM runs")
step "run $run of $games games submitted on $address; starting two worker containers"
for i in 1 2; do
    "${pod[@]}" run -d --network host --name "$name-worker-$i" "$image" \
        sparring-worker --coordinator "$address" --token "$worker_token" --concurrency 1 \
        --name "container-$i" >/dev/null
done

deadline=$(($(date +%s) + 600))
until [ "$(sql "SELECT state FROM runs WHERE id = $run")" = finished ]; do
    if [ "$(date +%s)" -gt "$deadline" ]; then
        cli show "$run" || true
        "${pod[@]}" logs --tail 20 "$name-worker-1" || true
        echo "container-check: FAILED: run $run did not finish in 10 minutes" >&2
        exit 1
    fi
    sleep 2
done

stored=$(sql "SELECT count(*) FROM games WHERE run_id = $run")
distinct=$(sql "SELECT count(DISTINCT game) FROM games WHERE run_id = $run")
workers=$(sql "SELECT count(*) FROM workers WHERE games > 0")
step "run $run finished: $stored games stored ($distinct distinct), played by $workers worker containers"
if [ "$stored" != "$games" ] || [ "$distinct" != "$games" ]; then
    echo "container-check: FAILED: expected $games games, stored $stored ($distinct distinct)" >&2
    exit 1
fi
step "ok"
