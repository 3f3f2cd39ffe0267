package daemon

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// The daemon serves exactly the methods the protocol says a client sends.
func TestServedMethodsAreTheContract(t *testing.T) {
	s := newServer(context.Background(), Options{Registry: tool.NewRegistry()})
	// initialize and shutdown are served on the read loop (see call).
	calls := map[string]bool{protocol.Initialize.Method: true, protocol.Shutdown.Method: true}
	for name := range s.methods {
		calls[name] = true
	}
	served := maps.Clone(calls)
	for name := range s.notifiers {
		if served[name] {
			t.Errorf("%s is served both as a call and as a notification", name)
		}
		served[name] = true
	}
	for name := range served {
		m, ok := protocol.Lookup(name)
		switch {
		case !ok:
			t.Errorf("the daemon serves %s, which the protocol does not declare", name)
		case m.Direction() == protocol.DaemonToClient || m.Direction() == protocol.MCPToApprover:
			t.Errorf("the daemon serves %s, which the protocol says the daemon sends", name)
		}
		if isCall := calls[name]; ok && isCall != (m.Result() != nil) {
			t.Errorf("%s: served as a call %v, declared as a request %v", name, isCall, m.Result() != nil)
		}
	}
	for _, m := range protocol.Methods {
		if (m.Direction() == protocol.ClientToDaemon || m.Direction() == protocol.BothWays) && !served[m.Name()] {
			t.Errorf("the protocol says a client sends %s, but the daemon does not serve it", m.Name())
		}
	}
}

// methodShape is what a method name looks like: "tools/call", "$/progress".
var methodShape = regexp.MustCompile(`^\$?[a-zA-Z]*/[a-zA-Z]+$`)

// Every method the daemon serves or sends is named by its declaration in
// the protocol (protocol.ToolsCall), never by a string of its own, so
// every one of them is in the table with its types: no string literal of
// the package's code is a method name. (LSP's names without a slash,
// "initialize" and "exit", are words log lines use too; only the read
// loop names them, through their declarations.)
func TestNoMethodNamedByHand(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, isImport := n.(*ast.ImportSpec); isImport {
				return false
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			checked++
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if methodShape.MatchString(v) {
				t.Errorf("%s: the method %q is named by hand; use its declaration in package protocol", fset.Position(lit.Pos()), v)
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("only %d string literals checked: the walk missed the package", checked)
	}
}

// A handler or a call to the client whose types are not the method's does
// not compile. Each case adds one file to the package (through the go
// command's overlay, nothing is written into the tree) and builds it; the
// first case is right and must build, so the others fail for their types.
func TestWrongTypesDoNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package several times")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, code, wantErr string
	}{
		{"right types", `
func init() {
	t := map[string]method{}
	handle(t, protocol.ToolsCall, func(context.Context, *protocol.ToolCallParams) (protocol.ToolCallResult, error) { return protocol.ToolCallResult{}, nil })
	on(map[string]notifier{}, nil, protocol.WorkspaceDirty, func(*protocol.WorkspaceDirtyParams) {})
	_ = func(h *host) { _, _ = ask(context.Background(), h, protocol.UserAsk, protocol.UserAskParams{}) }
	_ = func(h *host) { tell(context.Background(), h, protocol.ToolsActivity, protocol.Activity{}) }
}`, ""},
		{"a handler with the wrong params", `
func init() {
	handle(map[string]method{}, protocol.ToolsCall, func(context.Context, *protocol.UndoParams) (protocol.ToolCallResult, error) { return protocol.ToolCallResult{}, nil })
}`, "does not match"},
		{"a handler with the wrong result", `
func init() {
	handle(map[string]method{}, protocol.UndoList, func(context.Context, *protocol.None) (protocol.UndoResult, error) { return protocol.UndoResult{}, nil })
}`, "does not match"},
		{"a notification handler with the wrong params", `
func init() {
	on(map[string]notifier{}, nil, protocol.WorkspaceDirty, func(*protocol.DiagnosticsPublishParams) {})
}`, "does not match"},
		{"a call to the client with the wrong params", `
var _ = func(h *host) { _, _ = ask(context.Background(), h, protocol.ApprovalRequest, protocol.UserAskParams{}) }`, "does not match"},
		{"a call to the client read as the wrong result", `
var _ = func(h *host) (protocol.UserAskResult, error) { return ask(context.Background(), h, protocol.ModelChat, protocol.ModelChatParams{}) }`, "cannot use"},
		{"a notification to the client with the wrong params", `
var _ = func(h *host) { tell(context.Background(), h, protocol.TodoChanged, protocol.Activity{}) }`, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "wrong.go")
			code := "package daemon\n\nimport (\n\t\"context\"\n\n\t\"github.com/tether-dev/tether/protocol\"\n)\n\nvar _ context.Context\nvar _ protocol.None\n" + tc.code + "\n"
			if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(here, "zz_contract_check.go"): src}})
			ov := filepath.Join(dir, "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gobin, "build", "-overlay", ov, ".")
			cmd.Dir = here
			out, err := cmd.CombinedOutput()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("the right types do not build: %v\n%s", err, out)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("built, but should not:\n%s", tc.code)
			case tc.wantErr != "" && (!strings.Contains(string(out), "wrong.go:") || !strings.Contains(string(out), tc.wantErr)):
				t.Fatalf("failed, but not for the types (want %q in the error):\n%s", tc.wantErr, out)
			}
		})
	}
}
