#!/usr/bin/env bash
# Measures undo checkpoints on a copy of the Go source tree
# ($(go env GOROOT)/src) and prints a table: Tether's checkpoint of one
# changed file side by side with a shadow-git snapshot (git add -A && git
# commit in a separate --git-dir, warm), the undo of a 100-file request,
# and what each keeps on disk. Figures only; nothing is asserted. Extra
# arguments go to the program (see bench/undo/main.go), e.g. -rounds 15.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build undo git:git
"$bench_bin" "$@"
