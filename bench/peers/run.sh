#!/usr/bin/env bash
# Measures Tether side by side with its peers and prints one table of
# ratios (see bench/peers/main.go): the MCP filesystem server from npm
# (installed on first use into a cache folder), a do-nothing Go stdio
# server, ripgrep and a shadow git. Figures only; nothing is asserted.
#   bash bench/peers/run.sh [-calls N] [-rounds N] [-starts N]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build peers node:nodejs npm:npm rg:ripgrep git:git
go build -o "$bench_tmp/tether" ./cmd/tether
go build -o "$bench_tmp/nullserver" ./bench/peers/nullserver

# The reference MCP filesystem server, pinned, installed once per version.
peer_version=2026.8.31
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tether-bench/server-filesystem-$peer_version
peer=$cache/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
if [ ! -f "$peer" ]; then
	echo "installing @modelcontextprotocol/server-filesystem@$peer_version into $cache" >&2
	mkdir -p "$cache"
	npm install --silent --no-audit --no-fund --prefix "$cache" "@modelcontextprotocol/server-filesystem@$peer_version" >&2
fi
"$bench_bin" -tether "$bench_tmp/tether" -null "$bench_tmp/nullserver" -peer "$peer" "$@"
