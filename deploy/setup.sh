#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds Sparring, and runs one job:
#   demo   the main job (see README)          test   every test (ctest)
#   build  build only                         bench  the benchmarks in bench/
set -euo pipefail

job=${1:-demo}
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SPARRING_BUILD_DIR:-$root/build}
jobs=${SPARRING_JOBS:-2}

packages=(cmake g++ make pkg-config
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
          libsqlite3-dev sqlite3 zlib1g-dev libssl-dev openssl libgtest-dev libgmock-dev libbenchmark-dev
          libarchive-dev
          python3 stockfish
          prometheus-cpp-dev libcpp-httplib-dev nlohmann-json3-dev libcli11-dev libjs-dygraphs)
# Only the test job needs these: they check the deploy recipes, the metrics format and the
# C++ formatting, and chromium opens the dashboard in the browser test.
# (prometheus brings promtool; on a machine running systemd it also starts a server on :9090.)
test_packages=(python3-yaml docker-compose prometheus clang-format chromium)

# Installs the Debian packages that are not installed yet; apt-get runs only when needed.
install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Configures (Release) and builds every target with $jobs parallel jobs.
build_all() {
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$build" -j "$jobs"
}

case "$job" in
    demo|test|build|bench) ;;
    *) echo "usage: setup.sh demo|test|build|bench" >&2; exit 2 ;;
esac

[ "$job" = test ] && packages+=("${test_packages[@]}")
install_missing
build_all
case "$job" in
    build) ;;
    test)  ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@" ;;
    bench) "$root/bench/run_all.sh" "$build" "$@" ;;
    demo)  "$root/deploy/demo.sh" "$build" "$@" ;;
esac
