package cmdline

import (
	"path/filepath"
	"strings"
	"testing"
)

// insideRoot treats relative paths without ".." as inside, the way a
// workspace rooted at the working folder would.
func insideRoot(p string) bool {
	if filepath.IsAbs(p) {
		return strings.HasPrefix(p, "/project/")
	}
	c := filepath.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

func TestAllowListAccepts(t *testing.T) {
	tests := []struct {
		command  string
		trusted  bool
		readOnly bool
	}{
		{"ls", false, true},
		{"ls -la src", false, true},
		{"git status", false, true},
		{"git status --porcelain -b", false, true},
		{"git diff HEAD~1 -- main.go", false, true},
		{"git log --oneline -n 5 origin/main..HEAD", false, true},
		{"git show HEAD:go.mod", false, true},
		{"rg -n 'func main' --glob '*.go'", false, true},
		{"grep -rn TODO .", false, true},
		{"find . -name '*.go' -type f", false, true},
		{"cat go.mod | head -n 5", false, true},
		{"wc -l main.go && tail -n 20 log.txt", false, true},
		{"pwd; echo done", false, true},
		{"git log 2>&1 | head", false, true},
		{"ls missing 2>/dev/null || echo none", false, true},
		{"(ls; pwd)", false, true},
		{"grep x < input.txt", false, true},
		{"grep x <<< 'a x b'", false, true},
		{"go test ./...", true, false},
		{"go test -run TestX -count=1 ./shell/...", true, false},
		{"npm test", true, false},
		{"npm run test -- --watch=false", true, false},
		{"pytest -x tests", true, false},
		{"python3 -m pytest", true, false},
		{"uv run pytest", true, false},
		{"cargo test --release", true, false},
		{"make test", true, false},
		{"git status && go test ./...", true, false},
	}
	for _, tt := range tests {
		got := Analyze(tt.command).AllowList(Options{Trusted: tt.trusted, Inside: insideRoot})
		if !got.OK {
			t.Errorf("AllowList(%q) refused: %s", tt.command, got.Why)
			continue
		}
		if got.ReadOnly != tt.readOnly {
			t.Errorf("AllowList(%q).ReadOnly = %v, want %v", tt.command, got.ReadOnly, tt.readOnly)
		}
	}
}

func TestAllowListRefuses(t *testing.T) {
	tests := []struct {
		command string
		trusted bool
		why     string // a word the reason must contain
	}{
		{"rm -rf x", false, "not on the list"},
		{"ls; rm x", false, "rm"},
		{"ls | xargs rm", false, "xargs"},
		{"echo hi > out.txt", false, "writes"},
		{"echo hi >> out.txt", false, "writes"},
		{"ls &> out.txt", false, "writes"},
		{"ls >&out.txt", false, "writes"},
		{"ls *.go", false, "glob"},
		{"ls ~", false, "~"},
		{"ls ~/src", false, "~"},
		{"ls --dir=~/x", false, "~"},
		{"ls {a,b}", false, "brace"},
		{"ls $HOME", false, "known only"},
		{"ls $(pwd)", false, "known only"},
		{"FOO=1 ls", false, "variables"},
		{"GIT_EXTERNAL_DIFF=./x git diff", false, "variables"},
		{"ls &", false, "background"},
		{"for f in a; do ls; done", false, "loop"},
		{"f() { ls; }; f", false, "function"},
		{"cat /etc/passwd", false, "outside"},
		{"cat ../secret", false, "outside"},
		{"grep -f/etc/passwd x", false, "outside"},
		{"rg --ignore-file=/etc/x foo", false, "outside"},
		{"grep x < /etc/shadow", false, "outside"},
		{"find / -name x", false, "outside"},
		{"find . -exec rm {} +", false, "-exec"},
		{"find . -delete", false, "-delete"},
		{"find . -fprint out", false, "-fprint"},
		{"find -L .", false, "-L"},
		{"rg --pre ./evil foo", false, "--pre"},
		{"rg --pre=./evil foo", false, "--pre"},
		{"rg --hostname-bin=./x foo", false, "--hostname-bin"},
		{"rg -L foo", false, "--follow"},
		{"grep -R foo .", false, "-R"},
		{"tail -f log", false, "tail -f"},
		{"git push", false, "push"},
		{"git -C /tmp status", false, "-C"},
		{"git -c core.pager=x log", false, "-c"},
		{"git", false, "subcommand"},
		{"git diff --output=x", false, "--output"},
		{"git diff --ext-diff", false, "--ext-diff"},
		{"git log --textconv", false, "--textconv"},
		{"git diff --no-index /etc/passwd x", false, "--no-index"},
		{"git log --show-signature", false, "--show-signature"},
		{"git log --format=%G?", false, "%G"},
		{"./ls", false, "not on the list"},
		{"/bin/ls", false, "not on the list"},
		{"go test ./...", false, "trusted"},
		{"npm test", false, "trusted"},
		{"go build ./...", true, "not on the list"},
		{"go test -exec ./evil ./...", true, "-exec"},
		{"go test -toolexec=./evil ./...", true, "-toolexec"},
		{"npm install", true, "not on the list"},
		{"cargo test --config x", true, "--config"},
		{"make test --eval=x", true, "--eval"},
		{"go test -coverprofile=/tmp/c.out ./...", true, "outside"},
		{"$(echo ls)", false, "cannot be known"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		got := Analyze(tt.command).AllowList(Options{Trusted: tt.trusted, Inside: insideRoot})
		if got.OK {
			t.Errorf("AllowList(%q) accepted it, want it refused", tt.command)
			continue
		}
		if !strings.Contains(got.Why, tt.why) {
			t.Errorf("AllowList(%q).Why = %q, want it to mention %q", tt.command, got.Why, tt.why)
		}
	}
}

func TestAllowListHardensGit(t *testing.T) {
	tests := []struct{ command, run string }{
		{"git status", "git -c core.fsmonitor= -c log.showSignature=false status"},
		{"git diff --stat", "git -c core.fsmonitor= -c log.showSignature=false diff --no-ext-diff --no-textconv --stat"},
		{"git log -1 && git show HEAD", "git -c core.fsmonitor= -c log.showSignature=false log --no-ext-diff --no-textconv -1 && git -c core.fsmonitor= -c log.showSignature=false show --no-ext-diff --no-textconv HEAD"},
		{"ls && pwd", "ls && pwd"},
		{"'git' status", "'git' -c core.fsmonitor= -c log.showSignature=false status"},
	}
	for _, tt := range tests {
		got := Analyze(tt.command).AllowList(Options{Inside: insideRoot})
		if !got.OK {
			t.Fatalf("AllowList(%q) refused: %s", tt.command, got.Why)
		}
		if got.Run != tt.run {
			t.Errorf("AllowList(%q).Run = %q, want %q", tt.command, got.Run, tt.run)
		}
	}
}

// The built-in rules hold their own examples, and the check can fail.
func TestBuiltinExamplesHold(t *testing.T) {
	if bad := BuiltinProblems(); len(bad) > 0 {
		t.Fatalf("the allow-list fails its examples: %q", bad)
	}
	wrong := []Example{{Command: "rm -rf /", Match: true}, {Command: "git status"}}
	if bad := CheckAllowList(wrong); len(bad) != 2 {
		t.Fatalf("CheckAllowList(wrong examples) = %q, want both reported", bad)
	}
}
