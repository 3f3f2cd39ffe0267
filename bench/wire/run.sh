#!/usr/bin/env bash
# Measures one small call and one large over stdio on this tree's build of
# `tether serve`, side by side with builds of other commits (see
# bench/wire/main.go); ratios are to this tree's build:
#   bash bench/wire/run.sh [-ref REF]... [-rounds N] [-batch N] [-writes N]
# Each -ref (a branch, tag or commit) is built from git into a temporary
# folder. Figures only; nothing is asserted.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
refs=()
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-ref)
		refs+=("$2")
		shift 2
		;;
	*)
		args+=("$1")
		shift
		;;
	esac
done
bench_build wire ./cmd/tether
bins=(-bin "this=$bench_tmp/tether")
for ref in "${refs[@]}"; do
	src=$bench_tmp/src-${#bins[@]}
	mkdir -p "$src"
	git archive "$ref" | tar -x -C "$src"
	(cd "$src" && go build -o "$bench_tmp/tether-${#bins[@]}" ./cmd/tether)
	bins+=(-bin "$ref=$bench_tmp/tether-${#bins[@]}")
	echo "$ref: $(git rev-parse --short "$ref")"
done
"$bench_bin" "${bins[@]}" "${args[@]}"
