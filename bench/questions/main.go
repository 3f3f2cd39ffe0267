// Command questions counts the questions the shell tool puts to the user
// in a scripted session of typical agent commands, in default mode, before
// and after a sandboxed command's writes were captured, side by side in
// one run.
//
// The session runs in a small Go project kept in git (tests, builds,
// formatters, git status/diff/log, ls/cat/grep, make, an edit with sed,
// and one `npm install` with network access) twice, each time from the
// same starting copy with stores of its own:
//
//   - before: the session keeps no folder for overlay layers, so every
//     command writes the workspace directly, as Tether did before capture:
//     each one not on the read-only allow-list asks before it runs;
//   - after: the project's stores as a front end opens them: a sandboxed
//     command without network runs unasked over an overlay, and what it
//     changed is reviewed after it ran where it matters (files that are
//     not ignored, removals).
//
// Every question is answered "yes" (and, in a second pair of columns,
// "always", whose saved rules spare later questions). After each command
// the tracked files are compared with what they were before it: a command
// that changed one must have had that file's diff shown in a question
// (the after columns: a review), or it is counted as changed unseen.
//
//	go run ./bench/questions [-v]
//
// Nothing is asserted; the goal printed is at least 80% fewer questions
// and no tracked file changed unseen.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// step is one command of the session.
type step struct {
	command string
	network bool
}

// session is what an agent typically runs while it works on a change.
var session = []step{
	{command: "git status"},
	{command: "ls -la"},
	{command: "cat main.go"},
	{command: "grep -rn TODO --include=*.go ."},
	{command: "git log --oneline -5"},
	{command: "go build ./..."},
	{command: "go vet ./..."},
	{command: "go test ./..."},
	{command: "gofmt -l ."},
	{command: "gofmt -w main.go"},
	{command: "git diff --stat"},
	{command: "sed -i 's/Hello/Hi/' main.go main_test.go"},
	{command: "go test ./..."},
	{command: "go test -coverprofile=coverage.out ./..."},
	{command: "make build"},
	{command: "ls bin"},
	{command: "wc -l *.go"},
	{command: "find . -name '*.go' -not -path './.git/*'"},
	{command: "go mod tidy"},
	{command: "npm install --no-audit --no-fund", network: true},
	{command: "git diff"},
	{command: "head -5 README.md"},
	{command: "gofmt -l ."},
	{command: "rm -rf bin coverage.out"},
	{command: "git status --short"},
}

var project = map[string]string{
	".gitignore": "bin/\ncoverage.out\nnode_modules/\n",
	"go.mod":     "module example.com/app\n\ngo 1.21\n",
	// Badly formatted on purpose: gofmt -l lists it, gofmt -w rewrites it.
	"main.go":      "package main\n\nimport \"fmt\"\n\n// Greeting says hello. TODO: more languages.\nfunc Greeting(name string) string {\n  return fmt.Sprintf(\"Hello, %s!\", name)\n}\n\nfunc main() {\n\tfmt.Println(Greeting(\"world\"))\n}\n",
	"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif got := Greeting(\"Ada\"); got != \"Hello, Ada!\" {\n\t\tt.Fatalf(\"got %q\", got)\n\t}\n}\n",
	"Makefile":     "build:\n\tgo build -o bin/app .\n",
	"package.json": "{\n  \"name\": \"app\",\n  \"version\": \"1.0.0\",\n  \"private\": true\n}\n",
	"README.md":    "# app\n\nSays hello.\n",
}

func main() {
	log.SetFlags(0)
	verbose := flag.Bool("v", false, "print each command with the questions it asked")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	st, _ := sandbox.Detected(ctx)
	cancel()
	if st.Level != sandbox.LevelFull {
		log.Fatalf("this machine has no full sandbox (%s): nothing is captured here, so there is nothing to compare", st.Why)
	}
	tmp, err := os.MkdirTemp("", "questions-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	type column struct {
		name    string
		capture bool
		answer  protocol.Answer
		out     tally
	}
	cols := []*column{
		{name: "before, yes", answer: protocol.AnswerYes},
		{name: "after, yes", capture: true, answer: protocol.AnswerYes},
		{name: "before, always", answer: protocol.AnswerAlways},
		{name: "after, always", capture: true, answer: protocol.AnswerAlways},
	}
	for i, c := range cols {
		out, err := runSession(filepath.Join(tmp, fmt.Sprint(i)), c.capture, c.answer, *verbose, c.name)
		if err != nil {
			log.Fatalf("%s: %v", c.name, err)
		}
		c.out = out
	}
	fmt.Printf("questions: %d typical agent commands in default mode (%s, %s)\n\n", len(session), time.Now().UTC().Format("2006-01-02"), st.Level)
	row := func(label string, f func(tally) string) {
		fmt.Printf("%-44s", label)
		for _, c := range cols {
			fmt.Printf(" %16s", f(c.out))
		}
		fmt.Println()
	}
	fmt.Printf("%-44s", "answer to every question:")
	for _, c := range cols {
		fmt.Printf(" %16s", c.name)
	}
	fmt.Println()
	row("questions asked", func(t tally) string { return fmt.Sprint(t.questions) })
	row("  before a command ran", func(t tally) string { return fmt.Sprint(t.before) })
	row("  reviews of what a command changed", func(t tally) string { return fmt.Sprint(t.after) })
	row("commands that changed a tracked file", func(t tally) string { return fmt.Sprint(t.changing) })
	row("  ... without that file's diff shown", func(t tally) string { return fmt.Sprint(t.unseen) })
	row("commands that failed", func(t tally) string { return fmt.Sprint(t.failed) })
	fmt.Println()
	fewer := func(b, a int) float64 { return 100 * float64(b-a) / float64(max(b, 1)) }
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		b, a := cols[pair[0]].out, cols[pair[1]].out
		fmt.Printf("%s → %s: %d → %d questions in all, %.0f%% fewer (goal: at least 80%%); %d → %d before a command ran, %.0f%% fewer; tracked files changed unseen: %d → %d (goal: 0)\n",
			cols[pair[0]].name, cols[pair[1]].name, b.questions, a.questions, fewer(b.questions, a.questions), b.before, a.before, fewer(b.before, a.before), b.unseen, a.unseen)
	}
	fmt.Println("(an \"always\" on a review saves the rule an \"always\" on an edit saves: later changes are applied unreviewed, by the user's choice)")
}

// tally is what one run of the session counted.
type tally struct {
	questions, before, after int
	changing, unseen, failed int
}

// recorder answers every question with answer and keeps them.
type recorder struct {
	tool.NoHost
	answer protocol.Answer
	mu     sync.Mutex
	asked  []protocol.ApprovalRequestParams
}

func (r *recorder) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return protocol.ApprovalRequestResult{Answer: r.answer}, nil
}

// runSession runs the session in a fresh copy of the project under dir.
func runSession(dir string, capture bool, answer protocol.Answer, verbose bool, name string) (tally, error) {
	var t tally
	folder := filepath.Join(dir, "app")
	if err := makeProject(folder); err != nil {
		return t, err
	}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, filepath.Join(dir, v))
	}
	ws, err := workspace.New(folder)
	if err != nil {
		return t, err
	}
	defer ws.Close()
	st, err := stores.Open(ws.Primary(), stores.Options{})
	if err != nil {
		return t, err
	}
	defer st.Close()
	host := &recorder{answer: answer}
	env := tool.NewEnv(tool.EnvConfig{Workspace: ws, Host: host, Stores: st, Settings: tool.Settings{Mode: protocol.ModeDefault, SettleTime: -1}})
	if !capture {
		// Tether before capture: no layers, so every command writes the
		// workspace directly and asks first.
		env.Layers = ""
	}
	reg := tools.Builtin()
	sess := tool.NewSession()
	tracked, err := gitFiles(ws.Primary())
	if err != nil {
		return t, err
	}
	if verbose {
		fmt.Printf("--- %s\n", name)
	}
	for i, s := range session {
		before := hashes(ws.Primary(), tracked)
		args := map[string]any{"command": s.command, "timeout": 300}
		if s.network {
			args["network"] = true
		}
		raw, _ := json.Marshal(args)
		host.mu.Lock()
		from := len(host.asked)
		host.mu.Unlock()
		res := reg.Invoke(context.Background(), &tool.Call{Name: "shell", Args: raw, RequestID: fmt.Sprint("q", i), Budget: tool.NewBudget(0, 0), Session: sess, Env: env})
		host.mu.Lock()
		asked := slices.Clone(host.asked[from:])
		host.mu.Unlock()
		shown := map[string]bool{}
		var kinds []string
		for _, q := range asked {
			t.questions++
			if q.Kind == protocol.ApprovalShell {
				t.before++
			} else {
				t.after++
			}
			kinds = append(kinds, string(q.Kind))
			for _, f := range q.Files {
				if f.Diff != "" {
					shown[f.Path] = true
				}
			}
			if q.Path != "" && q.Diff != "" {
				shown[q.Path] = true
			}
		}
		if res.IsError {
			t.failed++
		}
		after := hashes(ws.Primary(), tracked)
		var changed, unseen []string
		for _, f := range tracked {
			if before[f] != after[f] {
				changed = append(changed, f)
				if !shown[filepath.Join(ws.Primary(), f)] {
					unseen = append(unseen, f)
				}
			}
		}
		if len(changed) > 0 {
			t.changing++
		}
		if len(unseen) > 0 {
			t.unseen++
		}
		if verbose {
			fmt.Printf("%-45s asked %-12s changed %v unseen %v error %v\n", s.command, strings.Join(kinds, ","), changed, unseen, res.IsError)
			if res.IsError {
				fmt.Println(indent(res.Content))
			}
		}
	}
	return t, nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}

// makeProject writes the project into folder and commits it.
func makeProject(folder string) error {
	for name, content := range project {
		p := filepath.Join(folder, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = folder
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
	}
	return nil
}

// gitFiles lists the files git tracks in folder, and package-lock.json,
// which npm install makes and a project keeps in git.
func gitFiles(folder string) ([]string, error) {
	cmd := exec.Command("git", "ls-files")
	cmd.Dir = folder
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	files := strings.Fields(string(out))
	return append(files, "package-lock.json"), nil
}

// hashes reads each file's content hash ("" when it is not there).
func hashes(folder string, files []string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(folder, f))
		if err == nil {
			out[f] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
	}
	return out
}
