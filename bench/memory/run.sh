#!/usr/bin/env bash
# Times memory_search through the registry over 1,000 memories of 4 KB
# (warm: the median of repeated searches; cold: a fresh store reading every
# file), against the 10 ms target for a warm search. Extra arguments go to
# the program (see bench/memory/main.go), e.g. -n 5000 or -runs 51.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build memory
"$bench_bin" "$@"
