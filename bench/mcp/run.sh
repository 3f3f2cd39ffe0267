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
cd "$(dirname "$0")/../.."

CACHE="${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}"
PEER_VERSION=2026.8.31
NODE="${TETHER_MCP_NODE:-node}"
command -v "$NODE" >/dev/null || { echo "node not found: install Node.js (or set TETHER_MCP_NODE)" >&2; exit 1; }
command -v rg >/dev/null || { echo "ripgrep not found (apt-get install -y ripgrep)" >&2; exit 1; }

peer_dir="$CACHE/server-filesystem"
peer="$peer_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
stamp="$peer_dir/.ok-$PEER_VERSION"
if [ ! -f "$stamp" ] || [ ! -f "$peer" ]; then
	echo "npm install @modelcontextprotocol/server-filesystem@$PEER_VERSION" >&2
	rm -rf "$peer_dir"
	mkdir -p "$peer_dir"
	echo '{"name":"tether-mcp-peer","private":true}' >"$peer_dir/package.json"
	(cd "$peer_dir" && npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/server-filesystem@$PEER_VERSION" >&2)
	touch "$stamp"
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/tether" ./cmd/tether
go build -o "$bin/mcpbench" ./bench/mcp
echo "peer: @modelcontextprotocol/server-filesystem $PEER_VERSION on node $("$NODE" -v)"
"$bin/mcpbench" -tether "$bin/tether" -peer "$(command -v "$NODE") $peer" "$@"
