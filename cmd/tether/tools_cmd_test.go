package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func runToolsIn(t *testing.T, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	code := toolsMain(args, cmdIO{stdout: &out, stderr: &errb})
	return cliRun{code, out.String(), errb.String()}
}

func TestToolsJSONListsEveryTool(t *testing.T) {
	r := runToolsIn(t, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var infos []protocol.ToolInfo
	if err := json.Unmarshal([]byte(r.stdout), &infos); err != nil {
		t.Fatalf("tools --json is not a JSON list of tools: %v", err)
	}
	var names []string
	for _, info := range infos {
		names = append(names, info.Name)
		var schema map[string]any
		if err := json.Unmarshal(info.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: inputSchema is not an object schema: %s", info.Name, info.InputSchema)
		}
		if info.Description == "" || info.Risk == "" || info.Permission == "" {
			t.Errorf("%s: description, risk or permission missing: %+v", info.Name, info)
		}
	}
	slices.Sort(names)
	if want := tools.Builtin().Names(); !slices.Equal(names, want) {
		t.Errorf("tools --json lists %v, the registry has %v", names, want)
	}
}

func TestToolsTableListsEveryTool(t *testing.T) {
	r := runToolsIn(t)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[0], "NAME") {
		t.Errorf("no header row: %q", lines[0])
	}
	for _, info := range tools.Builtin().Infos(nil) {
		row := ""
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, info.Name+" ") {
				row = l
			}
		}
		if row == "" || !strings.Contains(row, string(info.Risk)) || !strings.Contains(row, info.Permission) {
			t.Errorf("no row with the name, risk and permission of %s:\n%s", info.Name, r.stdout)
		}
	}
}

func TestToolsRejectsArguments(t *testing.T) {
	if r := runToolsIn(t, "read_file"); r.code != 2 {
		t.Errorf("tools read_file: exit %d, want 2", r.code)
	}
}

func TestOneLineDescription(t *testing.T) {
	tests := []struct {
		info protocol.ToolInfo
		want string
	}{
		{protocol.ToolInfo{UserDescription: "Read a file", Description: "Long. Text."}, "Read a file"},
		{protocol.ToolInfo{Description: "First sentence. Second one."}, "First sentence."},
		{protocol.ToolInfo{Description: strings.Repeat("word ", 40)}, strings.Repeat("word ", 40)[:79] + "…"},
	}
	for _, tt := range tests {
		if got := oneLine(tt.info); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.info.Description, got, tt.want)
		}
	}
}

// Headless, agent is listed as unavailable, with what it needs.
func TestToolsSaysWhatIsUnavailableHeadless(t *testing.T) {
	r := runToolsIn(t)
	_, tail, ok := strings.Cut(r.stdout, "Unavailable headless")
	if !ok {
		t.Fatalf("no list of unavailable tools:\n%s", r.stdout)
	}
	if !strings.Contains(tail, "  agent: needs a client that serves a language model (model/chat)") {
		t.Errorf("agent is not listed as unavailable with its reason:\n%s", tail)
	}
	if strings.Contains(tail, "read_file") {
		t.Errorf("read_file is listed as unavailable:\n%s", tail)
	}
}

// The table's footer names the tools `tether call` cannot run, each with
// the reason; the memory tools run headless (a call opens the project's
// memory), so they are not among them.
func TestToolsTableNamesWhatHeadlessLacks(t *testing.T) {
	r := runToolsIn(t)
	_, footer, ok := strings.Cut(r.stdout, "Unavailable headless")
	if !ok {
		t.Fatalf("no footer of unavailable tools:\n%s", r.stdout)
	}
	for _, name := range []string{"problems", "shell_output", "shell_kill", "agent"} {
		if !strings.Contains(footer, "  "+name+": needs ") {
			t.Errorf("%s is not named with its need in the footer:\n%s", name, footer)
		}
	}
	for _, name := range []string{"remember", "memory_read", "memory_search", "memory_archive"} {
		if strings.Contains(footer, "  "+name+":") {
			t.Errorf("%s is listed as unavailable headless, yet tether call runs it:\n%s", name, footer)
		}
	}
}
