#!/usr/bin/env bash
# Times the shell tool against running `bash -c true` directly: the runner
# alone, the tool through the registry (bypass mode and an allow-listed
# command), and a `git status` pair, in interleaved rounds. Prints medians,
# 90th percentiles and the ratios to the direct runs (target: under 1.2x).
# Figures only; nothing is asserted. Extra arguments go to the program
# (see bench/shell/main.go), e.g. -rounds 1000.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v git >/dev/null || { echo "git not found (apt-get install -y git)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/shellbench" ./bench/shell
echo "shell overhead, $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
"$bin/shellbench" "$@"
