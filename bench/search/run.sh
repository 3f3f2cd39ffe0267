#!/usr/bin/env bash
# Times the search tools on the Go source tree ($(go env GOROOT)/src): the
# grep tool through the registry against ripgrep run directly (with --json,
# and with the tool's exact flags) on the same pattern, broad searches that
# the tool stops at max_matches 100, glob and list_dir. Prints medians of
# alternating runs in wall and CPU time, and the ratios. Extra arguments go
# to the program (see bench/search/main.go), e.g. -runs 21 or -corpus DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v rg >/dev/null || { echo "ripgrep not found (apt-get install -y ripgrep)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/searchbench" ./bench/search
"$bin/searchbench" "$@"
