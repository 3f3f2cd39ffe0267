#!/usr/bin/env bash
# Measures `tether serve` from the outside and prints a table:
#   bash bench/daemon/run.sh [-calls N] [-starts N]
# Figures only; nothing is asserted.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build daemon ./cmd/tether
"$bench_bin" -bin "$bench_tmp/tether" "$@"
