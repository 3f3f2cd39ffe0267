# Shared by the bench/*/run.sh scripts; source it, do not run it.
#
#   . "$(dirname "$0")/../lib.sh"
#   bench_build NAME [COMMAND:PACKAGE]...
#
# bench_build goes to the repository root, checks that each COMMAND the
# benchmark compares against is installed (naming the Debian PACKAGE when
# not), builds the program in bench/NAME into a temporary folder that is
# removed on exit, and prints a header with the machine's state. The
# program's path is then in $bench_bin.

bench_build() {
	local name=$1 pair
	shift
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	for pair in "$@"; do
		command -v "${pair%%:*}" >/dev/null ||
			{ echo "${pair%%:*} not found (apt-get install -y ${pair#*:})" >&2; exit 1; }
	done
	bench_tmp=$(mktemp -d)
	trap 'rm -rf "$bench_tmp"' EXIT
	bench_bin=$bench_tmp/$name
	go build -o "$bench_bin" "./bench/$name"
	echo "$name: $(go version | cut -d' ' -f3), $(nproc) CPU, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
}
