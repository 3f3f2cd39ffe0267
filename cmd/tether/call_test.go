package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/undo"
)

const original = "package demo\n\nfunc Answer() int { return 41 }\n"

// editAnswer is a read then an edit of demo.go, as command-line arguments.
var editAnswer = []string{
	"read_file", `{"path":"demo.go"}`,
	"edit_file", `{"path":"demo.go","old_string":"return 41","new_string":"return 42"}`,
}

const edited = "package demo\n\nfunc Answer() int { return 42 }\n"

func TestCallReadThenEditWithYes(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	tm := noTerminal()
	r := runCallIn(t, dir, tm, "", append([]string{"--yes"}, editAnswer...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if got := fileContent(t, path); got != edited {
		t.Errorf("file = %q, want %q", got, edited)
	}
	if !strings.Contains(r.stdout, "-func Answer() int { return 41 }") || !strings.Contains(r.stdout, "+func Answer() int { return 42 }") {
		t.Errorf("stdout lacks the edit's diff:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "approved by --yes") {
		t.Errorf("stderr does not say --yes approved the edit:\n%s", r.stderr)
	}
	if tm.opened != 0 {
		t.Errorf("--yes still opened the terminal %d times", tm.opened)
	}
}

func TestCallEditWithoutTerminalIsRefused(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "", editAnswer...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := fileContent(t, path); got != original {
		t.Errorf("file changed without approval: %q", got)
	}
	for _, advice := range []string{"--yes", "--mode acceptEdits"} {
		if !strings.Contains(r.stderr, advice) {
			t.Errorf("the refusal does not advise %s:\n%s", advice, r.stderr)
		}
	}
}

func TestCallPlanModeRefusesEdit(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	tm := typing("y\n")
	r := runCallIn(t, dir, tm, "", append([]string{"--mode", "plan", "--yes"}, editAnswer...)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	if got := fileContent(t, path); got != original {
		t.Errorf("plan mode changed the file: %q", got)
	}
	if !strings.Contains(r.stderr, "plan mode") {
		t.Errorf("the refusal does not name plan mode:\n%s", r.stderr)
	}
}

func TestCallAcceptEditsNeedsNoTerminal(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	tm := noTerminal()
	r := runCallIn(t, dir, tm, "", append([]string{"--mode", "acceptEdits"}, editAnswer...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	if got := fileContent(t, path); got != edited {
		t.Errorf("file = %q, want %q", got, edited)
	}
	if tm.opened != 0 {
		t.Errorf("acceptEdits asked on the terminal %d times", tm.opened)
	}
}

func TestCallTerminalAnswers(t *testing.T) {
	tests := []struct {
		name     string
		typed    string
		wantCode int
		want     string // the file afterwards
		wantSaid string // in the output
		prompts  int    // how many times the question was put
	}{
		{"yes", "y\n", 0, edited, "", 1},
		{"yes in full", "YES\n", 0, edited, "", 1},
		{"always", "a\n", 0, edited, "", 1},
		{"no", "n\n", 1, original, "declined", 1},
		{"skip", "s\n", 1, original, "skipped", 1},
		{"asks again after nonsense", "maybe\n\ny\n", 0, edited, "", 3},
		{"terminal closes unanswered", "", 1, original, "terminal closed", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, path := workspaceWith(t, "demo.go", original)
			tm := typing(tt.typed)
			r := runCallIn(t, dir, tm, "", editAnswer...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if got := fileContent(t, path); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if !strings.Contains(r.stdout+r.stderr, tt.wantSaid) {
				t.Errorf("output does not say %q:\n%s%s", tt.wantSaid, r.stdout, r.stderr)
			}
			if n := strings.Count(tm.shown.String(), "Allow? "); n != tt.prompts {
				t.Errorf("asked %d times, want %d; terminal:\n%s", n, tt.prompts, tm.shown.String())
			}
			if !strings.Contains(r.stderr, "+func Answer() int { return 42 }") {
				t.Errorf("the diff was not shown before asking:\n%s", r.stderr)
			}
		})
	}
}

func TestCallExitCodes(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantSaid string // on stderr
	}{
		{"success", []string{"read_file", `{"path":"demo.go"}`}, "", 0, ""},
		{"tool error", []string{"read_file", `{"path":"missing.go"}`}, "", 1, "does not exist"},
		{"bad tool arguments", []string{"read_file", `{"file":"demo.go"}`}, "", 1, `unknown argument "file"`},
		{"unknown flag", []string{"--frobnicate", "read_file", `{}`}, "", 2, "frobnicate"},
		{"bad mode", []string{"--mode", "yolo", "read_file", `{"path":"demo.go"}`}, "", 2, "acceptEdits"},
		{"negative budget", []string{"--budget", "-5", "read_file", `{"path":"demo.go"}`}, "", 2, "--budget"},
		{"no calls", nil, "", 2, "no calls"},
		{"JSON missing", []string{"read_file"}, "", 2, `"read_file" has no JSON after it`},
		{"JSON malformed", []string{"read_file", `{"path":"demo.go"}`, "read_file", `{path:demo.go}`}, "", 2, "argument 4 (the JSON for read_file, call 2) is not valid JSON"},
		{"JSON not an object", []string{"read_file", `["demo.go"]`}, "", 2, "must be a JSON object {...}, not an array"},
		{"unknown tool", []string{"raed_file", `{}`}, "", 2, `argument 1: there is no tool named "raed_file"`},
		{"stdin and arguments", []string{"--stdin", "read_file", `{}`}, "", 2, "not both"},
		{"stdin empty", []string{"-"}, "\n\n", 2, "no calls"},
		{"stdin bad line", []string{"-"}, `{"name":"read_file","arguments":{"path":"demo.go"}}` + "\n" + `{"name":"read_file","arguments":` + "\n", 2, "stdin line 2"},
		{"stdin unknown field", []string{"-"}, `{"tool":"read_file"}`, 2, `unknown field "tool"`},
		{"stdin arguments not an object", []string{"-"}, `{"name":"read_file","arguments":"demo.go"}`, 2, `stdin line 1: "arguments" must be a JSON object`},
		{"missing workspace", []string{"--workspace", dir + "/nowhere", "read_file", `{"path":"demo.go"}`}, "", 2, "nowhere"},
		{"missing configured rg", []string{"--rg", dir + "/no-rg", "read_file", `{"path":"demo.go"}`}, "", 2, "--rg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCallIn(t, dir, noTerminal(), tt.stdin, tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, tt.wantCode, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantSaid) {
				t.Errorf("stderr does not say %q:\n%s", tt.wantSaid, r.stderr)
			}
		})
	}
}

func TestCallStopsAtFirstError(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "",
		"read_file", `{"path":"missing.go"}`,
		"todo", `{"items":[{"text":"after the failure","status":"pending"}]}`)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	if strings.Contains(r.stdout+r.stderr, "after the failure") {
		t.Errorf("the call after the failed one ran:\n%s%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "call 1 of 2 (read_file) failed, so the 1 call(s) after it were not run") {
		t.Errorf("stderr does not say the run stopped:\n%s", r.stderr)
	}
}

func TestCallStdinJSONLines(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	stdin := `{"name":"read_file","arguments":{"path":"demo.go"}}` + "\n\n" +
		`{"name":"edit_file","arguments":{"path":"demo.go","old_string":"return 41","new_string":"return 42"}}` + "\n"
	for _, flagForm := range []string{"-", "--stdin"} {
		t.Run(flagForm, func(t *testing.T) {
			if err := writeFile(path, original); err != nil {
				t.Fatal(err)
			}
			r := runCallIn(t, dir, noTerminal(), stdin, "--yes", flagForm)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
			}
			if got := fileContent(t, path); got != edited {
				t.Errorf("file = %q, want %q", got, edited)
			}
		})
	}
}

func TestCallJSONOutput(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "", append([]string{"--json", "--yes"}, editAnswer...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", r.code, r.stderr)
	}
	var results []jsonResult
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var res jsonResult
		if err := dec.Decode(&res); err != nil {
			t.Fatalf("line %q is not a result object: %v", sc.Text(), err)
		}
		results = append(results, res)
	}
	if len(results) != 2 {
		t.Fatalf("got %d result lines, want 2:\n%s", len(results), r.stdout)
	}
	if results[0].Name != "read_file" || !strings.Contains(results[0].Content, "1\tpackage demo") || results[0].IsError || results[0].Diff != "" {
		t.Errorf("read result = %+v", results[0])
	}
	if results[1].Name != "edit_file" || results[1].IsError || !strings.Contains(results[1].Diff, "+func Answer() int { return 42 }") {
		t.Errorf("edit result = %+v", results[1])
	}
}

func TestCallJSONOutputCarriesErrors(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "", "--json", "read_file", `{"path":"missing.go"}`)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not one result object: %v\n%s", err, r.stdout)
	}
	if !res.IsError || !strings.Contains(res.Content, "does not exist") {
		t.Errorf("result = %+v, want the error", res)
	}
}

func TestCallAskUserOnTerminal(t *testing.T) {
	question := `{"question":"Which one?","options":["red","blue"],"allow_free_text":true}`
	tests := []struct {
		typed string
		want  string
	}{
		{"2\n", "The user chose: blue"},
		{"green\n", "The user answered in their own words: green"},
		{"\n", "The user did not answer"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.typed), func(t *testing.T) {
			dir := t.TempDir()
			tm := typing(tt.typed)
			r := runCallIn(t, dir, tm, "", "ask_user", question)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.want) {
				t.Errorf("stdout = %q, want %q", r.stdout, tt.want)
			}
			if !strings.Contains(tm.shown.String(), "2) blue") {
				t.Errorf("the options were not shown:\n%s", tm.shown.String())
			}
		})
	}
}

// A cancelled run (Ctrl-C) must not leave a goroutine waiting for a key
// press: closing the terminal ends the read.
func TestApproveCancelledClosesTerminal(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var shown bytes.Buffer
	h := &cliHost{stderr: io.Discard, terminal: func() (io.ReadWriteCloser, error) {
		return pipeTerminal{pr, &shown}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Approve(ctx, protocol.ApprovalRequestParams{Tool: "edit_file", Title: "Edit demo.go", Kind: protocol.ApprovalEdit})
		done <- err
	}()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled approval was granted")
	}
	// The reader goroutine ends once the closed pipe fails its read; the
	// leak check in TestMain fails the package if it does not.
}

type pipeTerminal struct {
	r     *io.PipeReader
	shown *bytes.Buffer
}

func (p pipeTerminal) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeTerminal) Write(b []byte) (int, error) { return p.shown.Write(b) }
func (p pipeTerminal) Close() error                { return p.r.Close() }

func TestCallChangesFormOneCheckpoint(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "", "--yes", "--request", "req-7",
		"read_file", `{"path":"demo.go"}`,
		"edit_file", `{"path":"demo.go","old_string":"return 41","new_string":"return 42"}`,
		"edit_file", `{"path":"demo.go","old_string":"Answer","new_string":"Reply"}`)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	store, err := undo.Open(dir, undo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cps, err := store.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 1 || cps[0].RequestID != "req-7" || !slices.Equal(cps[0].Files, []string{"demo.go"}) {
		t.Fatalf("checkpoints = %+v, want one for req-7 holding demo.go", cps)
	}
	if !strings.Contains(r.stderr, "undo checkpoint "+cps[0].ID) {
		t.Errorf("stderr does not name the checkpoint %s:\n%s", cps[0].ID, r.stderr)
	}
}

func TestCallDryRunStagesInsteadOfWriting(t *testing.T) {
	dir, path := workspaceWith(t, "demo.go", original)
	r := runCallIn(t, dir, noTerminal(), "", append([]string{"--mode", "dryRun"}, editAnswer...)...)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if got := fileContent(t, path); got != original {
		t.Errorf("dryRun wrote the file: %q", got)
	}
	if !strings.Contains(r.stdout, "staged") || !strings.Contains(r.stdout, "+func Answer() int { return 42 }") {
		t.Errorf("stdout does not show the staged diff:\n%s", r.stdout)
	}
}

// Calls piped in on stdin have used it up, so approvals must not be read
// from it: only a real /dev/tty may answer.
func TestTTYOnlyRefusesTheStdinFallback(t *testing.T) {
	open := ttyOnly(func() (io.ReadWriteCloser, error) { return stdinTerminal{}, nil })
	if tty, err := open(); !errors.Is(err, errNoTerminal) || tty != nil {
		t.Errorf("ttyOnly over stdin = (%v, %v), want errNoTerminal", tty, err)
	}
	real := typing("y\n")
	open = ttyOnly(real.open)
	if tty, err := open(); err != nil || tty == nil {
		t.Errorf("ttyOnly over a terminal = (%v, %v), want the terminal", tty, err)
	}
}

// A step that offers no "always" (a command outside the sandbox) does not
// take "a" for an answer; the prompt shows what the command may do and the
// agent's description; --yes does not answer a step after web content.
func TestApproveWithoutAlwaysOnTheTerminal(t *testing.T) {
	off := false
	req := protocol.ApprovalRequestParams{Tool: "shell", Title: "List the containers (run docker ps outside the sandbox): docker ps", Kind: protocol.ApprovalShell, Command: "docker ps", Sandbox: &off, Description: "List the containers"}
	tm := typing("a\ny\n")
	var shown bytes.Buffer
	h := &cliHost{stderr: &shown, terminal: tm.open}
	got, err := h.Approve(context.Background(), req)
	if err != nil || got.Answer != protocol.AnswerYes {
		t.Fatalf("answer %v, %v", got, err)
	}
	prompt := tm.shown.String()
	if strings.Contains(prompt, "[a]lways") || !strings.Contains(prompt, "Please answer y (yes, this once), s (skip this step) or n (no, stop).") {
		t.Errorf("the prompt offered always, or took it:\n%s", prompt)
	}
	for _, w := range []string{"outside the sandbox: it runs with all of your rights", "wants to: List the containers (run docker ps outside the sandbox)"} {
		if !strings.Contains(shown.String(), w) {
			t.Errorf("the request shown lacks %q:\n%s", w, shown.String())
		}
	}
	yes := &cliHost{yes: true, stderr: io.Discard, terminal: noTerminal().open}
	web := protocol.ApprovalRequestParams{Tool: "shell", Title: "Run curl with network access", Kind: protocol.ApprovalShell, Command: "curl x.test", Network: true, Untrusted: []string{"https://a.test/page"}}
	if _, err := yes.Approve(context.Background(), web); err == nil || !strings.Contains(err.Error(), "--yes does not cover it") {
		t.Errorf("--yes answered network access after web content: %v", err)
	}
}
