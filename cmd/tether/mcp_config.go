package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// mcpClients are the clients --print-config knows, in the order the help
// names them.
var mcpClients = []string{"claude", "codex", "cursor", "vscode"}

// mcpClientFiles says where each client's snippet goes.
var mcpClientFiles = map[string]string{
	"claude": ".mcp.json in the project's folder (or: claude mcp add-json tether '<the \"tether\" object>')",
	"codex":  "~/.codex/config.toml",
	"cursor": ".cursor/mcp.json in the project's folder (or ~/.cursor/mcp.json)",
	"vscode": ".vscode/mcp.json in the project's folder",
}

// printMCPConfig writes what registers `tether mcp` for the workspace
// folders in client's configuration: the command is this tether, by its
// absolute path (clients started from a desktop often lack the shell's
// PATH), and the folders are absolute, so the server never depends on
// where the client happens to start it.
func printMCPConfig(w io.Writer, client, exe string, folders []string) error {
	args := []string{"mcp"}
	for _, f := range folders {
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("--workspace %q: %v", f, err)
		}
		args = append(args, "--workspace", abs)
	}
	entry := map[string]serverEntry{"tether": {Type: "stdio", Command: exe, Args: args}}
	switch client {
	case "claude", "cursor":
		return writeJSON(w, struct {
			Servers map[string]serverEntry `json:"mcpServers"`
		}{entry})
	case "vscode":
		return writeJSON(w, struct {
			Servers map[string]serverEntry `json:"servers"`
		}{entry})
	case "codex":
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = tomlString(a)
		}
		_, err := fmt.Fprintf(w, "[mcp_servers.tether]\ncommand = %s\nargs = [%s]\n", tomlString(exe), strings.Join(quoted, ", "))
		return err
	}
	return fmt.Errorf("--print-config %q: the clients are %s", client, strings.Join(mcpClients, ", "))
}

// serverEntry is a server entry of the JSON configurations, in the order
// people read it.
type serverEntry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// tomlString writes s as a TOML basic string. JSON's string escapes are
// TOML's (\" \\ \n \t \uXXXX), so a JSON encoder writes it.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimRight(b.String(), "\n")
}
