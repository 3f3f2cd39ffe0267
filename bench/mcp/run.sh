#!/usr/bin/env bash
# Measures `tether mcp` side by side with the reference MCP filesystem
# server (npm @modelcontextprotocol/server-filesystem, on Node) over MCP on
# the same files, interleaved in one run: start to first tools/list, a
# 4 KiB read, a listing of 200 entries, a name search over the Go source
# tree, a 1 MiB edit, peak RSS. See bench/mcp/main.go. Extra arguments go
# to the program, e.g. -runs 101.
#
# The filesystem server is installed on first use into
#   ${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}/server-filesystem
# and runs on the `node` found on PATH (TETHER_MCP_NODE names another).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
NODE="${TETHER_MCP_NODE:-node}"
bench_build mcp "$NODE:nodejs" rg:ripgrep ./cmd/tether
bench_mcp_peer
echo "peer: @modelcontextprotocol/server-filesystem $bench_peer_version on node $("$NODE" -v)"
"$bench_bin" -tether "$bench_tmp/tether" -peer "$(command -v "$NODE") $bench_peer" "$@"
