package cmdline

import (
	"fmt"
	"path/filepath"
	"sync"
)

// Example is a command line a rule must let through (Match) or must not.
// The built-in rules carry theirs below and saved rules may carry their
// own: each is checked when the rules load, so a rule is its own test and
// a rule that no longer does what it says is found before it is used.
type Example struct {
	Command string
	Match   bool
	// Trusted runs the example as in a trusted project (test runners).
	Trusted bool
}

// builtinExamples are the allow-list's own: the read-only forms it lets
// through, and near misses it must refuse.
var builtinExamples = []Example{
	{Command: "git status --short", Match: true},
	{Command: "git diff HEAD~1 -- main.go", Match: true},
	{Command: "git log --oneline -5 | head -3", Match: true},
	{Command: "git show HEAD:go.mod", Match: true},
	{Command: "ls -la && pwd", Match: true},
	{Command: "rg -n 'func main' .", Match: true},
	{Command: "grep -rn TODO src", Match: true},
	{Command: "find . -name '*.go' -type f", Match: true},
	{Command: "cat go.mod | wc -l", Match: true},
	{Command: "tail -n 20 build.log", Match: true},
	{Command: "echo done 2>&1", Match: true},
	{Command: "git push"},
	{Command: "git commit -m x"},
	{Command: "git diff --output=patch"},
	{Command: "git log --ext-diff"},
	{Command: "git -c core.pager=evil status"},
	{Command: "rg --pre ./x foo"},
	{Command: "grep -R foo ."},
	{Command: "find . -delete"},
	{Command: "find . -exec rm {} +"},
	{Command: "tail -f build.log"},
	{Command: "cat go.mod > copy"},
	{Command: "cat /etc/shadow"},
	{Command: "ls $HOME"},
	{Command: "echo $(id)"},
	{Command: "ls &"},
	{Command: "rm -rf build"},
	{Command: "go test ./...", Match: true, Trusted: true},
	{Command: "npm test", Match: true, Trusted: true},
	{Command: "go test ./..."},
	{Command: "go test -exec ./evil ./...", Trusted: true},
	{Command: "go run ./cmd/x", Trusted: true},
	{Command: "npm run build", Trusted: true},
}

var (
	builtinOnce     sync.Once
	builtinProblems []string
)

// BuiltinProblems lists the built-in examples the allow-list gets wrong,
// none when it holds. While there is one, the allow-list lets nothing
// through: every command asks.
func BuiltinProblems() []string {
	builtinOnce.Do(func() { builtinProblems = CheckAllowList(builtinExamples) })
	return builtinProblems
}

// CheckAllowList runs examples against the allow-list, relative paths
// counting as inside the workspace, and says which it gets wrong.
func CheckAllowList(examples []Example) []string {
	var bad []string
	for _, e := range examples {
		got := Analyze(e.Command).allowList(Options{Trusted: e.Trusted, Inside: func(p string) bool { return !filepath.IsAbs(p) }}).OK
		if got != e.Match {
			bad = append(bad, fmt.Sprintf("%q should %s", e.Command, verb(e.Match)))
		}
	}
	return bad
}

func verb(match bool) string {
	if match {
		return "run without asking, and does not"
	}
	return "ask, and does not"
}
