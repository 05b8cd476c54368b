#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds Sparring, and runs one job:
#   demo   the main job (see README)          test   every test once (ctest), some sanitized
#   build  build only                         bench  the benchmarks in bench/
# The test job runs tests in the release build (build/), then the sanitizer stage: clang
# builds with ASan and UBSan (the debug-sanitize preset, in build-asan/) and runs what
# SPARRING_SANITIZER_STAGE says:
#   1 (the default, what CI runs)  the quick tests and the fuzz targets (each over its corpus
#        plus a few seconds); the release build then runs only the slow, deploy and release
#        labels, so that every test runs once (26 minutes on 2 cores; BENCHMARKS.md)
#   fuzz the fuzz targets only, after every test in the release build
#   0    no sanitizer stage
# Both builds are unity builds (SPARRING_UNITY_BUILD=OFF for one file per compiler run).
set -euo pipefail

job=${1:-demo}
shift || true
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SPARRING_BUILD_DIR:-$root/build}
jobs=${SPARRING_JOBS:-2}

# (lld links faster than GNU ld; the build falls back to GNU ld without it. bubblewrap is the
# worker's sandbox for uploaded engines, libseccomp its system-call filter.)
packages=(cmake g++ make pkg-config lld
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
          libsqlite3-dev sqlite3 zlib1g-dev libssl-dev openssl libgtest-dev libgmock-dev libbenchmark-dev
          libarchive-dev
          python3 stockfish
          prometheus-cpp-dev libcpp-httplib-dev nlohmann-json3-dev libcli11-dev libjs-dygraphs
          libboost1.81-dev bubblewrap libseccomp-dev)
# Only the test job needs these: they check the deploy recipes, the metrics format and the
# C++ formatting, and chromium opens the dashboard in the browser test.
# (prometheus brings promtool; on a machine running systemd it also starts a server on :9090.)
# clang, libFuzzer and the sanitizer runtimes build the sanitizer stage and the fuzz targets;
# faketime moves the coordinator's wall clock in the fault tests; curl fetches over HTTPS in
# the HTTP server's test; glaurung is a real engine with a real fault (it answers `bestmove
# (none)` under `go nodes`) for the fault and engine-output tests.
test_packages=(python3-yaml docker-compose prometheus clang-format chromium faketime curl
               clang-14 libfuzzer-14-dev libclang-rt-14-dev glaurung)
# The deploy checks run these tools; each package is installed unless the tool is already on
# the PATH (from whatever package): kubectl renders the Kubernetes manifests, systemd-analyze
# verifies the units.
test_tools=(kubectl:kubernetes-client systemd-analyze:systemd)
# Only the bench job needs these: deploy/container-check.sh builds the image and runs it.
bench_packages=(podman runc mmdebstrap)

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

# Configures (Release) and builds every target with $jobs parallel jobs; the arguments go to
# cmake's configure step.
build_all() {
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_UNITY_BUILD="${SPARRING_UNITY_BUILD:-ON}" "$@" >/dev/null
    cmake --build "$build" -j "$jobs"
}

# Builds under ASan and UBSan and runs: the fuzz targets, each over its corpus plus a few
# seconds (the build and test presets `fuzzers`), with `fuzz`; with `1` also the quick tests
# but for the release label (the presets `debug-sanitize`).
sanitizer_stage() {
    cd "$root"
    cmake --preset debug-sanitize -DCMAKE_UNITY_BUILD="${SPARRING_UNITY_BUILD:-ON}" >/dev/null
    if [ "$1" = 1 ]; then
        cmake --build --preset debug-sanitize -j "$jobs"
        ctest --preset debug-sanitize -j "$jobs"
    else
        cmake --build --preset fuzzers -j "$jobs"
        ctest --preset fuzzers -j "$jobs"
    fi
}

case "$job" in
    demo|test|build|bench) ;;
    *) echo "usage: setup.sh demo|test|build|bench" >&2; exit 2 ;;
esac
sanitize=${SPARRING_SANITIZER_STAGE:-1}
case "$sanitize" in
    1|fuzz|0) ;;
    *) echo "setup: SPARRING_SANITIZER_STAGE is 1 (the default), fuzz or 0, not '$sanitize'" >&2
       exit 2 ;;
esac

if [ "$job" = test ]; then
    packages+=("${test_packages[@]}")
    for entry in "${test_tools[@]}"; do
        command -v "${entry%%:*}" >/dev/null || packages+=("${entry#*:}")
    done
fi
[ "$job" = bench ] && packages+=("${bench_packages[@]}")
install_missing
# The test job builds with -Werror: a new compiler warning fails it (and CI) at once.
werror=OFF
[ "$job" = test ] && werror=ON
if [ "$job" = test ] && [ "$sanitize" = 1 ]; then
    build_all -DSPARRING_QUICK_TESTS_IN_ALL=OFF -DSPARRING_WERROR=$werror
else
    build_all -DSPARRING_QUICK_TESTS_IN_ALL=ON -DSPARRING_WERROR=$werror
fi
case "$job" in
    build) ;;
    test)  if [ "$sanitize" = 1 ]; then
               ctest --test-dir "$build" --output-on-failure -j "$jobs" -L 'slow|deploy|release' "$@"
           else
               ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
           fi
           [ "$sanitize" = 0 ] || sanitizer_stage "$sanitize" ;;
    bench) "$root/bench/run_all.sh" "$build" "$@" ;;
    demo)  "$root/deploy/demo.sh" "$build" "$@" ;;
esac
