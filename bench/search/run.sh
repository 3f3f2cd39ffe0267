#!/usr/bin/env bash
# Times the search tools on the Go source tree ($(go env GOROOT)/src): the
# grep tool through the registry against ripgrep run directly (with --json,
# and with the tool's exact flags) on the same pattern, broad searches that
# the tool stops at max_matches 100, glob and list_dir. Prints medians of
# alternating runs in wall and CPU time, and the ratios. Extra arguments go
# to the program (see bench/search/main.go), e.g. -runs 21 or -corpus DIR.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build search rg:ripgrep
"$bench_bin" "$@"
