# Helpers shared by the scripts in this folder; source it, do not run it.

# ensure_commands CMD:PACKAGE[,PACKAGE]... installs, from the Debian
# archive, the packages of every command that is not on PATH. As root it
# runs apt-get directly; otherwise through sudo. It fails when it cannot
# install.
ensure_commands() {
	local pair pkgs missing=()
	for pair in "$@"; do
		if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
			IFS=, read -ra pkgs <<<"${pair#*:}"
			missing+=("${pkgs[@]}")
		fi
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "present: $(printf '%s ' "${@%%:*}")"
		return 0
	fi
	local as_root=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "missing ${missing[*]}: install them as root (apt-get install ${missing[*]})" >&2
			return 1
		fi
		as_root=(sudo)
	fi
	echo "installing ${missing[*]} with apt-get"
	"${as_root[@]}" apt-get update -qq &&
		"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# step NAME COMMAND... runs one step of a script with a header, records
# how long it took and whether it passed, and keeps going on failure so a
# run reports every broken step at once. finish_steps prints the table
# and returns non-zero if any step failed.
_step_rows=()
_step_failed=0
step() {
	local name=$1 start rc
	shift
	printf '\n=== %s\n' "$name"
	start=$(date +%s)
	if "$@"; then rc=0; else rc=$?; fi
	local took=$(($(date +%s) - start))
	if [ "$rc" -eq 0 ]; then
		_step_rows+=("$(printf '%-22s ok      %4ss' "$name" "$took")")
	else
		_step_rows+=("$(printf '%-22s FAILED  %4ss  (exit %s)' "$name" "$took" "$rc")")
		_step_failed=1
	fi
	return 0
}

finish_steps() {
	printf '\n=== summary\n'
	printf '%s\n' "${_step_rows[@]}"
	return "$_step_failed"
}
