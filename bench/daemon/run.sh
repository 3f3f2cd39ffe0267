#!/usr/bin/env bash
# Measures `tether serve` from the outside and prints a table:
#   bash bench/daemon/run.sh [-calls N] [-starts N]
# Figures only; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/tether" ./cmd/tether
go build -o "$tmp/bench" ./bench/daemon
echo "tether serve, $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
"$tmp/bench" -bin "$tmp/tether" "$@"
