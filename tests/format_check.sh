#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what clang-format (Debian's, with the
# committed .clang-format) makes of it, and names each such file.
#   tests/format_check.sh SOURCE_DIR
set -euo pipefail
cd "$1"
if ! command -v clang-format >/dev/null; then
    echo "format_check: clang-format is not installed (deploy/setup.sh test installs it)" >&2
    exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
    mapfile -t files < <(find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.h' \) -print)
fi
bad=()
for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    for f in "${bad[@]}"; do echo "format_check: differs: $f (clang-format -i $f)" >&2; done
    exit 1
fi
echo "format_check: ${#files[@]} files formatted as .clang-format says"
