#!/usr/bin/env bash
# Runs every benchmark of the project and prints their figures together:
# each bench/*/run.sh script (whichever exist), then the Go benchmarks.
#
#   bench/run.sh [GO_BENCH_REGEX]     default: every Go benchmark
#   BENCHTIME=3s bench/run.sh         -benchtime for the Go benchmarks (default 1s)
#
# Figures are printed, never asserted. Exits non-zero if a script or the
# Go benchmarks failed, after running everything else.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shopt -s nullglob

pattern=${1:-.}
benchtime=${BENCHTIME:-1s}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
names=()

for script in bench/*/run.sh; do
	name=$(basename "$(dirname "$script")")
	names+=("$name")
	printf '\n=== %s (%s)\n' "$name" "$script"
	if bash "$script" 2>&1 | tee "$out/$name.txt"; then
		echo ok >"$out/$name.status"
	else
		echo FAILED >"$out/$name.status"
		failed=1
	fi
done

printf '\n=== go benchmarks (-bench %s -benchtime %s)\n' "$pattern" "$benchtime"
if go test -run '^$' -bench "$pattern" -benchmem -benchtime "$benchtime" ./... 2>&1 | tee "$out/go.txt"; then
	gostatus=ok
else
	gostatus=FAILED
	failed=1
fi

# The summary: every script's figures, then one row per Go benchmark with
# its package, so all figures of a run read side by side.
printf '\n\n=================== summary (%s)\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
printf 'machine: %s, %s CPUs, %s\n' "$(uname -sm)" "$(nproc 2>/dev/null || echo '?')" "$(go version | cut -d' ' -f3)"
if [ ${#names[@]} -eq 0 ]; then
	echo "(no bench/*/run.sh scripts yet)"
fi
for name in "${names[@]}"; do
	printf '\n--- %s: %s\n' "$name" "$(cat "$out/$name.status")"
	cat "$out/$name.txt"
done
printf '\n--- go benchmarks: %s\n' "$gostatus"
awk '
	/^pkg: / { pkg = $2; sub(/^github.com\/tether-dev\/tether\//, "", pkg); next }
	/^Benchmark/ && NF >= 4 {
		figures = ""
		for (i = 3; i < NF; i += 2) figures = figures sprintf("  %12s %s", $i, $(i + 1))
		printf "%-10s %-46s%s\n", pkg, $1, figures
		rows++
	}
	END { if (!rows) print "(no Go benchmarks ran)" }
' "$out/go.txt"
exit "$failed"
