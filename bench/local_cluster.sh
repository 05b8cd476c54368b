# Sourced by the bench scripts that run a coordinator on 127.0.0.1 (not run on its own).
#
# cluster_binaries BUILD
#   Sets coordinator, worker and cli to BUILD's programs; exits when one is missing.
#
# follow_run RUN
#   Waits for run RUN to end (asking every 5 s with $cli) and prints its `show`.
#
# start_local_coordinator COORDINATOR DB WORK
#   Removes DB and what belongs to it (and WORK's port file and worker caches), makes a user
#   and a worker token, starts `COORDINATOR serve` on a free port of 127.0.0.1 with its log in
#   WORK/coordinator.log, and waits for it. Sets user_token and worker_token, exports
#   SPARRING_COORDINATOR and SPARRING_TOKEN (the user's) for the CLI, and appends the
#   coordinator to the array pids, every process of which is stopped when the script exits.
start_local_coordinator() {
    local coordinator=$1 db=$2 work=$3
    rm -rf "$db" "$db-wal" "$db-shm" "$db.engines" "$work/port" "$work"/cache-*
    pids=()
    trap 'kill -TERM "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
    user_token=$("$coordinator" token create --db "$db" --role user --name bench-user)
    worker_token=$("$coordinator" token create --db "$db" --role worker --name bench-worker)
    "$coordinator" serve --db "$db" --listen 127.0.0.1:0 --port-file "$work/port" \
        >"$work/coordinator.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
    [ -s "$work/port" ] || { cat "$work/coordinator.log" >&2; exit 1; }
    export SPARRING_COORDINATOR="127.0.0.1:$(cat "$work/port")" SPARRING_TOKEN="$user_token"
}

cluster_binaries() {
    coordinator="$1/coordinator/sparring-coordinator"
    worker="$1/worker/sparring-worker"
    cli="$1/cli/sparring"
    local binary
    for binary in "$coordinator" "$worker" "$cli"; do
        [ -x "$binary" ] || { echo "missing $binary: build first" >&2; exit 1; }
    done
}

follow_run() {
    while "$cli" show "$1" | grep -q '^state: *active'; do sleep 5; done
    "$cli" show "$1"
}
