#!/usr/bin/env bash
# Times the shell tool against running `bash -c true` directly: the runner
# alone, the tool through the registry (bypass mode and an allow-listed
# command), and a `git status` pair, in interleaved rounds; then a command
# confined at each level, and at the full level the tool with a command's
# writes captured beside the same tool without capture. Prints medians,
# 90th percentiles and the ratios to the direct runs (target: under 1.2x).
# Figures only; nothing is asserted. Extra arguments go to the program
# (see bench/shell/main.go), e.g. -rounds 1000.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build shell git:git
"$bench_bin" "$@"
