#!/usr/bin/env bash
# Ten reads as ten tools/call round trips against one compose program, over
# real stdio, and prints a table:
#   bash bench/compose/run.sh [-rounds N]
# Figures only; nothing is asserted.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build compose ./cmd/tether
"$bench_bin" -bin "$bench_tmp/tether" "$@"
