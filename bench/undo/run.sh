#!/usr/bin/env bash
# Measures undo checkpoints on a copy of the Go source tree
# ($(go env GOROOT)/src) and prints a table: Tether's checkpoint of one
# changed file side by side with a shadow-git snapshot (git add -A && git
# commit in a separate --git-dir, warm), the undo of a 100-file request,
# and what each keeps on disk. Figures only; nothing is asserted. Extra
# arguments go to the program (see bench/undo/main.go), e.g. -rounds 15.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v git >/dev/null || { echo "git not found (apt-get install -y git)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/undobench" ./bench/undo
echo "undo checkpoints, $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
"$bin/undobench" "$@"
