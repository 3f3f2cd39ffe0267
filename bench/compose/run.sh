#!/usr/bin/env bash
# Ten reads as ten tools/call round trips against one compose program, over
# real stdio, and prints a table:
#   bash bench/compose/run.sh [-rounds N]
# Figures only; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/tether" ./cmd/tether
go build -o "$tmp/bench" ./bench/compose
echo "compose vs tools/call, $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
"$tmp/bench" -bin "$tmp/tether" "$@"
