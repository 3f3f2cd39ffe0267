#!/usr/bin/env bash
# Measures taking a sandboxed command's changes in: 1,000 new files taken
# in from an overlay's upper layer beside the floor of moving them in at
# all, and the undo checkpoint of a command that changed 10 files of a copy
# of the Go source tree ($(go env GOROOT)/src) beside a shadow-git snapshot
# of it. Figures only; nothing is asserted. Extra arguments go to the
# program (see bench/capture/main.go), e.g. -rounds 15.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build capture git:git
"$bench_bin" "$@"
