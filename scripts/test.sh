#!/usr/bin/env bash
# Runs every test of the project. This is the one test command: the README
# and .ci/run call it. It works on a fresh Debian machine that has Go and
# apt (it installs what else it needs) and exits non-zero if any step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# The race detector needs cgo, hence a C compiler.
race=(-race)
if [ "${TETHER_TEST_RACE:-1}" = 0 ]; then
	race=()
fi

system_packages() {
	# rg: grep and glob run ripgrep; patch: the diff tests apply their output.
	local needed=(rg:ripgrep patch:patch)
	if [ ${#race[@]} -gt 0 ]; then
		# Installed without recommends, gcc needs libc6-dev named for cgo.
		needed+=(gcc:gcc,libc6-dev)
	fi
	ensure_commands "${needed[@]}"
}

gofmt_clean() {
	local unformatted
	unformatted=$(find . \( -name node_modules -o -name .git -o -name bin \) -prune -o -name '*.go' -print0 |
		xargs -0 gofmt -l)
	if [ -n "$unformatted" ]; then
		echo "these files need gofmt -w:"
		echo "$unformatted"
		return 1
	fi
	echo "all Go files are gofmt-clean"
}

# The .vsix ships daemons for other systems: their code must compile and
# pass vet there, and so must the tests (run on those systems by whoever
# has one). `go test -c` per package compiles each package's tests.
other_platforms() {
	local target failed=0
	for target in windows/amd64 darwin/arm64 linux/arm64; do
		echo "--- $target"
		if ! GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go vet ./...; then
			failed=1
			continue
		fi
		if ! GOOS=${target%/*} GOARCH=${target#*/} CGO_ENABLED=0 go test -c -o /dev/null ./... >/dev/null; then
			failed=1
		fi
	done
	return "$failed"
}

go_test() {
	if [ ${#race[@]} -gt 0 ]; then
		export CGO_ENABLED=1
	fi
	go test "${race[@]}" -timeout 20m ./...
}

# The extension: its unit tests against a stand-in vscode module and its
# integration tests against the real daemon.
extension_tests() {
	if ! command -v npm >/dev/null 2>&1; then
		echo "npm is missing: install Node.js 20 or newer with npm"
		return 1
	fi
	npm ci --no-audit --no-fund --loglevel=error && npm test
}

# tether mcp against a client nobody here wrote: the MCP Inspector's CLI
# lists the tools and calls read_file and grep. The Inspector is installed
# on first use and cached (scripts/mcp-inspector.sh says where).
mcp_inspector() {
	bash scripts/mcp-inspector.sh
}

# The extension in a real VS Code (code-server in headless Chromium). The
# rig is installed on first use and cached; TETHER_E2E=0 skips this step.
e2e_tests() {
	npm run e2e
}

step "system packages" system_packages
step "go mod download" go mod download
step "go vet" go vet ./...
step "gofmt" gofmt_clean
step "other platforms" other_platforms
step "go test ${race[*]}" go_test
step "extension (npm test)" extension_tests
step "MCP Inspector CLI" mcp_inspector
if [ "${TETHER_E2E:-1}" != 0 ]; then
	step "end to end (npm run e2e)" e2e_tests
fi
finish_steps
