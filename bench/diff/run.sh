#!/usr/bin/env bash
# Times diff.Unified against GNU diff -u on the same generated 100,000-line
# files at 1%, 10% and 30% of lines changed, and prints one row per level:
# median wall time of each (whole processes, run alternately), their ratio,
# and the size of each diff in lines. Extra arguments go to the program
# (see bench/diff/main.go), e.g. -runs 21 or -levels 5,50.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build diff diff:diffutils
"$bench_bin" "$@"
