#!/usr/bin/env bash
# Measures Tether side by side with its peers and prints one table of
# ratios (see bench/peers/main.go): the MCP filesystem server from npm
# (installed on first use into a cache folder), a do-nothing Go stdio
# server, ripgrep and a shadow git. Figures only; nothing is asserted.
#   bash bench/peers/run.sh [-calls N] [-rounds N] [-starts N]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build peers node:nodejs rg:ripgrep git:git ./cmd/tether ./bench/peers/nullserver
bench_mcp_peer
"$bench_bin" -tether "$bench_tmp/tether" -null "$bench_tmp/nullserver" -peer "$bench_peer" "$@"
