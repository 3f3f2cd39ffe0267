#!/usr/bin/env bash
# Builds Tether: bin/tether (stamped with the version git describes), checks
# the machine with `tether doctor`, then builds the VS Code extension, one
# .vsix per platform (tether-<platform>.vsix, each holding its one daemon),
# and installs this machine's into VS Code when `code` is on PATH.
#
#   scripts/build.sh                 everything
#   TETHER_NO_EXTENSION=1 scripts/build.sh   the binary only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# grep and glob need ripgrep. A machine where it cannot be installed still
# gets a working binary; doctor then says what is missing.
ensure_commands rg:ripgrep || echo "warning: ripgrep could not be installed; grep and glob will not work" >&2

version=$(git describe --always --dirty 2>/dev/null || echo dev)
# Built as the extension's daemons are (extension/scripts/daemons.mjs):
# without cgo, the binary is static, runs on any Linux whatever its C
# library, and starts without loading one.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o bin/tether ./cmd/tether
echo "built bin/tether $version"
bin/tether doctor

if [ "${TETHER_NO_EXTENSION:-0}" = 1 ]; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "npm is not installed: skipping the VS Code extension (install Node.js 20+ with npm to build it)" >&2
	exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
npm run package
target=$(node -p 'process.platform + "-" + process.arch')
vsix="tether-$target.vsix"
if [ ! -f "$vsix" ]; then
	echo "no $vsix was built: this machine ($target) is not one of the platforms the extension ships for" >&2
	exit 1
fi
echo "built tether-*.vsix; $vsix is this machine's"
if command -v code >/dev/null 2>&1; then
	code --install-extension "$vsix" --force
	echo "installed into VS Code: open a folder, then the Chat view in Agent mode, and turn on the Tether tools"
else
	echo "VS Code's code command is not on PATH: install with  code --install-extension $vsix"
fi
