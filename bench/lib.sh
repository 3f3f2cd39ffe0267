# Shared by the bench/*/run.sh scripts; source it, do not run it.
#
#   . "$(dirname "$0")/../lib.sh"
#   bench_build NAME [COMMAND:PACKAGE]... [./GO_PACKAGE]...
#   bench_mcp_peer
#
# bench_build goes to the repository root, checks that each COMMAND the
# benchmark compares against is installed (naming the Debian PACKAGE when
# not), builds the program in bench/NAME into a temporary folder that is
# removed on exit, and prints a header with the machine's state. The
# program's path is then in $bench_bin and the folder in $bench_tmp. Each
# ./GO_PACKAGE is a further program the benchmark drives (./cmd/tether, a
# stand-in server), built into $bench_tmp under the last element of its
# path: ./cmd/tether becomes $bench_tmp/tether. They are built as the
# extension ships its daemon (extension/scripts/daemons.mjs): static,
# without cgo, paths trimmed and symbols stripped; a build with cgo loads
# the C library at every start (about 1 ms of `tether version` on
# 2026-12-03). Each is then written out again, as an installer writes
# it: a file the linker has just written sits in the page cache in
# larger pieces, which the kernel maps whole, and a process started from
# it shows several MiB more resident memory (23 against 17 MiB for
# tether serve, idle, on 2026-12-03) than one started from the same
# program installed or read from the disk.
#
# bench_mcp_peer installs, on first use and again when the pinned version
# changes, the reference MCP filesystem server from npm
# (@modelcontextprotocol/server-filesystem) into
#   ${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}/server-filesystem
# (the folder scripts/mcp-inspector.sh keeps its npm packages in too), and
# puts the path of its dist/index.js in $bench_peer and its version in
# $bench_peer_version.

bench_build() {
	local name=$1 arg
	shift
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	for arg in "$@"; do
		case $arg in
		*:*)
			command -v "${arg%%:*}" >/dev/null ||
				{ echo "${arg%%:*} not found (apt-get install -y ${arg#*:})" >&2; exit 1; }
			;;
		esac
	done
	bench_tmp=$(mktemp -d)
	trap 'rm -rf "$bench_tmp"' EXIT
	bench_bin=$bench_tmp/$name
	go build -o "$bench_bin" "./bench/$name"
	for arg in "$@"; do
		case $arg in
		*:*) ;;
		*)
			CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bench_tmp/built" "$arg"
			cat "$bench_tmp/built" >"$bench_tmp/$(basename "$arg")"
			chmod +x "$bench_tmp/$(basename "$arg")"
			rm "$bench_tmp/built"
			;;
		esac
	done
	echo "$name: $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
}

bench_peer_version=2026.8.31

bench_mcp_peer() {
	local dir=${TETHER_MCP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tether-mcp}/server-filesystem
	local stamp=$dir/.ok-$bench_peer_version
	bench_peer=$dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
	if [ ! -f "$stamp" ] || [ ! -f "$bench_peer" ]; then
		command -v npm >/dev/null || { echo "npm not found (apt-get install -y npm)" >&2; exit 1; }
		echo "npm install @modelcontextprotocol/server-filesystem@$bench_peer_version into $dir" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		echo '{"name":"tether-mcp-peer","private":true}' >"$dir/package.json"
		(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/server-filesystem@$bench_peer_version" >&2)
		touch "$stamp"
	fi
}
