package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tether-dev/tether"

// frameworkUsers are the packages under internal/ that are built on the
// tool framework rather than beneath it: they run tools (a program's child
// calls, a sub-agent's turns, an MCP client's calls).
//
// Commands (a cmd/ folder, like the manifest generator) may import anything.
var frameworkUsers = map[string]bool{
	"internal/tool":    true,
	"internal/compose": true,
	"internal/agent":   true,
	"internal/mcp":     true,
	"internal/layout":  true,
}

// imports maps each package directory (relative to the module root) to
// the project packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "testdata", "e2e", "extension":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				out[dir] = append(out[dir], rest)
			}
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// violations lists the arrows that run the wrong way.
func violations(graph map[string][]string) []string {
	var bad []string
	for pkg, deps := range graph {
		for _, dep := range deps {
			var why string
			switch {
			case (under(pkg, "internal") || under(pkg, "tools") || pkg == "undo" || pkg == "diagnostics" || pkg == "protocol") &&
				(under(dep, "daemon") || under(dep, "cmd")):
				why = "imports the daemon or the command line"
			case under(pkg, "internal") && !frameworkUsers[topInternal(pkg)] && !strings.Contains(pkg, "/cmd/") &&
				(under(dep, "internal/tool") || under(dep, "tools")):
				why = "is a helper package but imports the tool framework or the tools"
			case pkg == "internal/tool" && under(dep, "tools"):
				why = "is the framework but imports the tools built on it"
			case pkg == "protocol" && !under(dep, "protocol"):
				why = "is the wire contract but imports a package of the project"
			}
			if why != "" {
				bad = append(bad, pkg+" "+why+" ("+dep+")")
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// topInternal is the internal/<name> a package belongs to.
func topInternal(pkg string) string {
	parts := strings.SplitN(pkg, "/", 3)
	if len(parts) < 2 {
		return pkg
	}
	return parts[0] + "/" + parts[1]
}

func TestDependenciesPointOneWay(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	graph := imports(t, root)
	if len(graph["internal/tool"]) == 0 || len(graph["tools"]) == 0 {
		t.Fatalf("the walk found no imports of the framework or the tools: %v", graph)
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// The check itself must catch each wrong arrow.
func TestViolationsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		pkg, dep string
	}{
		{"internal/stores", "tools"},
		{"internal/stores", "internal/tool"},
		{"internal/workspace", "daemon"},
		{"tools", "cmd/tether"},
		{"internal/tool", "tools"},
		{"protocol", "internal/tool"},
		{"internal/shell/cmdline", "internal/tool"},
		{"internal/manifest", "tools"},
	} {
		if got := violations(map[string][]string{tc.pkg: {tc.dep}}); len(got) != 1 {
			t.Errorf("%s → %s: %v", tc.pkg, tc.dep, got)
		}
	}
	for _, tc := range []struct {
		pkg, dep string
	}{
		{"tools", "internal/tool"},
		{"internal/tool", "internal/stores"},
		{"internal/compose", "internal/tool"},
		{"daemon", "tools"},
		{"cmd/tether", "daemon"},
		{"internal/manifest/cmd/gen", "tools"},
	} {
		if got := violations(map[string][]string{tc.pkg: {tc.dep}}); len(got) != 0 {
			t.Errorf("%s → %s flagged: %v", tc.pkg, tc.dep, got)
		}
	}
}
