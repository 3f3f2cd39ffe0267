package cmdline

import (
	"strings"
	"testing"
)

// FuzzAnalyze feeds arbitrary command lines to the finder and the
// allow-list: neither may panic, and whatever the allow-list lets run
// unasked must be knowable and run only programs on its lists.
func FuzzAnalyze(f *testing.F) {
	for _, seed := range []string{
		"ls; rm -rf x", "$(rm x)", "ls | xargs rm", "FOO=1 rm x", "command rm", "sudo rm", "env -i rm",
		"'rm' x", `"r"m x`, "cat <<EOF\n$(rm x)\nEOF", "a && b || c", "(cd x; make)", "f() { rm x; }; f",
		"$(echo rm) x", "$CMD x", "git status", "rg -n foo", `bash -c "sh -c 'rm x'"`, "x='a[$(id)]'; (( x ))",
		"find . -exec rm {} +", "git log --format=%G?", "echo ${!x}", "trap 'rm x' EXIT",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, command string) {
		a := Analyze(command)
		allowed := a.AllowList(Options{Trusted: true, Inside: func(p string) bool { return !strings.Contains(p, "..") && !strings.HasPrefix(p, "/") }})
		if !allowed.OK {
			return
		}
		if a.Unknowable != "" {
			t.Fatalf("%q is allowed although unknowable (%s)", command, a.Unknowable)
		}
		for _, p := range a.Programs {
			_, ro := readOnlyRules[p]
			_, tr := testRunners[p]
			if !ro && !tr {
				t.Fatalf("%q is allowed but runs %q, which is on no list", command, p)
			}
		}
	})
}
