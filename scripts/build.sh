#!/usr/bin/env bash
# Builds bin/tether, stamped with the version git describes, and runs
# `tether doctor` to check the machine it will run on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# grep and glob need ripgrep. A machine where it cannot be installed still
# gets a working binary; doctor then says what is missing.
ensure_commands rg:ripgrep || echo "warning: ripgrep could not be installed; grep and glob will not work" >&2

version=$(git describe --always --dirty 2>/dev/null || echo dev)
go build -ldflags "-X main.version=$version" -o bin/tether ./cmd/tether
echo "built bin/tether $version"
bin/tether doctor
