package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// tether call makes its environment from --settings as the daemon makes
// its own from initialize's settings (its tests check the same): the
// compose and agent limits among them.
func TestCallMakesTheEnvEveryFrontEndMakes(t *testing.T) {
	isolateXDG(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	set := tooltest.EverySetting(exe)
	raw, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	cio := cmdIO{stdout: &strings.Builder{}, stderr: &strings.Builder{}, terminal: noTerminal().open}
	opts, _, err := parseCallArgs([]string{"--workspace", t.TempDir(), "--settings", string(raw), "read_file", `{"path":"a"}`}, cio, tools.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := opts.workspace()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st, err := tool.OpenStores(ws, &opts.set, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tooltest.CheckEnv(t, opts.env(cio, ws, st, nil), set)
}

// The flags that set one setting override --settings, or are overridden
// by it, in the order given, and a bad value names where it came from.
func TestCallSettingsFlags(t *testing.T) {
	var stderr strings.Builder
	parse := func(args ...string) (callOptions, error) {
		stderr.Reset()
		cio := cmdIO{stdout: &strings.Builder{}, stderr: &stderr}
		o, _, err := parseCallArgs(append(args, "read_file", `{"path":"a"}`), cio, tools.Builtin())
		return o, err
	}
	for _, tc := range []struct {
		args []string
		mode protocol.Mode
	}{
		{[]string{"--settings", `{"permissionMode":"plan"}`}, protocol.ModePlan},
		{[]string{"--settings", `{"permissionMode":"plan"}`, "--mode", "bypass"}, protocol.ModeBypass},
		{[]string{"--mode", "bypass", "--settings", `{"permissionMode":"plan"}`}, protocol.ModePlan},
		{[]string{"--settings", `{"tokenBudget":99}`}, protocol.ModeDefault},
	} {
		o, err := parse(tc.args...)
		if err != nil || o.set.Mode != tc.mode {
			t.Errorf("%q: mode %s (%v), want %s", tc.args, o.set.Mode, err, tc.mode)
		}
	}
	dir := t.TempDir()
	file := dir + "/settings.json"
	if err := os.WriteFile(file, []byte(`{"composeMaxCalls": 2, "agentMaxTurns": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := parse("--settings", "@"+file); err != nil || o.set.Compose.MaxCalls != 2 || o.set.AgentMaxTurns != 3 {
		t.Errorf("--settings @FILE: %+v (%v)", o.set, err)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--settings", `{"composeMaxCalls": -1}`}, "settings.composeMaxCalls is -1"},
		{[]string{"--budget", "-5"}, "--budget -5: it must be a positive number of tokens"},
		{[]string{"--settings", `{"tokenBudget": -5}`}, "settings.tokenBudget is -5"},
		{[]string{"--web-allow", "*.co.uk"}, `--web-allow: "*.co.uk" is a wildcard over the public suffix co.uk`},
		{[]string{"--settings", `{"composeTimout": 30}`}, `unknown field "composeTimout"`},
		{[]string{"--settings", `{"composeTimeout": "30"}`}, "composeTimeout"},
		{[]string{"--settings", "@" + dir + "/missing.json"}, "missing.json"},
	} {
		// A flag's own error is printed by the flag package.
		if _, err := parse(tc.args...); err == nil || !strings.Contains(err.Error()+stderr.String(), tc.says) {
			t.Errorf("%q: error %v (%s), want one saying %q", tc.args, err, stderr.String(), tc.says)
		}
	}
}

// The compose limits apply to tether call as they do to the daemon.
func TestCallAppliesTheComposeLimits(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", "package demo\n")
	program := `{"code": "for (let i = 1; i <= 3; i++) await tools.tether.read_file({path: \"demo.go\", offset: 1, limit: i})"}`
	r := runCallIn(t, dir, noTerminal(), "", "--settings", `{"composeMaxCalls": 2}`, "compose", program)
	if r.code != 1 || !strings.Contains(r.stderr, "tool calls limit") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runCallIn(t, dir, noTerminal(), "", "compose", program); r.code != 0 {
		t.Fatalf("without the setting: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// --write-root lets tether call's changes reach a folder outside the
// workspace, and nothing else outside it; a relative one is refused with
// the flag's name.
func TestCallWriteRoot(t *testing.T) {
	dir, _ := workspaceWith(t, "demo.go", "package demo\n")
	sib, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sib, "gen", "out.go")
	write := func(p string) []string {
		return []string{"write_file", `{"path":` + strconv.Quote(p) + `,"content":"package gen\n"}`}
	}
	if r := runCallIn(t, dir, noTerminal(), "", append([]string{"--yes", "--write-root", sib}, write(target)...)...); r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if got := fileContent(t, target); got != "package gen\n" {
		t.Fatalf("written: %q", got)
	}
	other := filepath.Join(t.TempDir(), "x.go")
	if r := runCallIn(t, dir, noTerminal(), "", append([]string{"--yes", "--write-root", sib}, write(other)...)...); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "outside the workspace folders") {
		t.Fatalf("outside the write root: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCallIn(t, dir, noTerminal(), "", append([]string{"--write-root", "gen"}, write(target)...)...); r.code != 2 || !strings.Contains(r.stderr, `--write-root: "gen" is not an absolute path`) {
		t.Fatalf("a relative write root: exit %d\n%s", r.code, r.stderr)
	}
}
