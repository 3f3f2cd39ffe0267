package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each client's snippet names this tether by its absolute path and the
// workspace, and what it names runs: a client started from it lists the
// tools and reads a file of the workspace, wherever the client starts it.
func TestPrintConfigStartsTheServer(t *testing.T) {
	f := newFixture(t)
	f.write(t, "hello.txt", "hello from the workspace\n")
	for _, client := range []string{"claude", "codex", "cursor", "vscode"} {
		t.Run(client, func(t *testing.T) {
			cmd := exec.Command(tetherBin, "mcp", "--print-config", client, "--workspace", f.ws)
			cmd.Env = f.env
			cmd.Dir = t.TempDir()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			command, args := parseSnippet(t, client, out)
			if command != tetherBin {
				t.Errorf("command %q, want this tether %q", command, tetherBin)
			}
			if want := []string{"mcp", "--workspace", f.ws}; strings.Join(args, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("args %q, want %q", args, want)
			}
			if stderr.Len() == 0 {
				t.Error("nothing says where the snippet goes")
			}
			run := exec.Command(command, args...)
			run.Env = f.env
			run.Dir = t.TempDir() // not the workspace: the snippet says which
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := newClient(nil).Connect(ctx, &sdk.CommandTransport{Command: run}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "hello.txt"}})
			if err != nil || res.IsError || !strings.Contains(text(res), "hello from the workspace") {
				t.Errorf("read_file through the snippet's server: %v %s", err, text(res))
			}
		})
	}
}

// parseSnippet reads the command and arguments out of a client's snippet.
func parseSnippet(t *testing.T, client string, out []byte) (string, []string) {
	t.Helper()
	type entry struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	var e entry
	switch client {
	case "codex":
		// TOML basic strings and arrays of them read as JSON.
		m := regexp.MustCompile(`(?s)^\[mcp_servers\.tether\]\ncommand = (".*?")\nargs = (\[.*\])\n$`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("not the codex table:\n%s", out)
		}
		if err := json.Unmarshal(m[1], &e.Command); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(m[2], &e.Args); err != nil {
			t.Fatal(err)
		}
		return e.Command, e.Args
	case "vscode":
		var v struct {
			Servers map[string]entry `json:"servers"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		e = v.Servers["tether"]
	default:
		var v struct {
			Servers map[string]entry `json:"mcpServers"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		e = v.Servers["tether"]
	}
	if e.Type != "stdio" {
		t.Errorf("type %q, want stdio", e.Type)
	}
	return e.Command, e.Args
}
