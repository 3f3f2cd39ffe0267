#!/usr/bin/env bash
# Counts the questions the shell tool asks in a scripted session of typical
# agent commands in default mode, before and after a sandboxed command's
# writes were captured, side by side in one run, and checks that every
# command that changed a tracked file had its diff shown. Figures only;
# nothing is asserted. Extra arguments go to the program (-v: each command
# with what it asked).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_build questions git:git go:golang npm:npm make:make
"$bench_bin" "$@"
