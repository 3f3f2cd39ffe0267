#!/usr/bin/env bash
# Times diff.Unified against GNU diff -u on the same generated 100,000-line
# files at 1%, 10% and 30% of lines changed, and prints one row per level:
# median wall time of each (whole processes, run alternately), their ratio,
# and the size of each diff in lines. Extra arguments go to the program
# (see bench/diff/main.go), e.g. -runs 21 or -levels 5,50.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v diff >/dev/null || { echo "GNU diff not found (apt-get install -y diffutils)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/diffbench" ./bench/diff
"$bin/diffbench" "$@"
