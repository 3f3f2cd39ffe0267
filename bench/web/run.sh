#!/usr/bin/env bash
# Times the web tools against a plain net/http GET from a local server:
# fetch overhead (web.Client and the web_fetch tool; target under 1.5x),
# a 200 KB article converted to Markdown (target under 50 ms) and a page
# served again from the cache (target under 1 ms), in interleaved rounds.
# Prints medians, 90th percentiles and ratios. Figures only; nothing is
# asserted. No network beyond loopback. Extra arguments go to the program
# (see bench/web/main.go), e.g. -rounds 200.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build web
"$bench_bin" "$@"
