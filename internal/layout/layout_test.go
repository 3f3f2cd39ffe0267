package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tether-dev/tether"

// The layers, from the top. A package belongs to the first layer that
// names it; the other packages under internal/, with undo and diagnostics,
// are helpers.
const (
	binary     = "the binary"   // cmd/tether: the command line, which starts the servers
	servers    = "servers"      // daemon (tether serve) and internal/mcp (tether mcp)
	toolSet    = "tools"        // tools: one file per tool
	runners    = "tool runners" // compose programs and sub-agents: tools built on running other tools
	framework  = "framework"    // internal/tool: registry, calls, sessions, the change pipeline
	helpers    = "helpers"      // undo, diagnostics and the other internal packages
	contract   = "contract"     // protocol: the wire types
	support    = "test support" // stand-ins and clients for tests (and benchmarks)
	generator  = "generator"    // internal/manifest: generated files and docs
	benchmarks = "benchmarks"   // bench/: programs that measure
	unplaced   = "no layer"     // a package the test does not know where to put
)

// members names the packages of each layer but helpers and benchmarks,
// which are known by where they live.
var members = map[string][]string{
	binary:    {"cmd/tether"},
	servers:   {"daemon", "internal/mcp"},
	toolSet:   {"tools"},
	runners:   {"internal/compose", "internal/agent"},
	framework: {"internal/tool"},
	contract:  {"protocol"},
	support:   {"internal/rpctest", "internal/tool/tooltest", "internal/diff/difftest", "internal/edit/edittest", "internal/web/webtest", "internal/layout"},
	generator: {"internal/manifest", "internal/manifest/cmd/gen"},
}

// allowed lists every arrow from one layer to another (or within one)
// that an import may follow. Nothing else is allowed.
var allowed = map[string][]string{
	binary:     {servers, toolSet, framework, helpers, contract},
	servers:    {toolSet, framework, helpers, contract},
	toolSet:    {runners, framework, helpers, contract},
	runners:    {framework, helpers, contract},
	framework:  {helpers, contract},
	helpers:    {helpers, contract},
	contract:   {},
	support:    {framework, helpers, contract},
	generator:  {generator, toolSet, framework, helpers, contract},
	benchmarks: {benchmarks, toolSet, framework, helpers, contract, support},
}

// layerOf places a package (a directory relative to the module root).
func layerOf(pkg string) string {
	for layer, pkgs := range members {
		for _, p := range pkgs {
			if p == pkg {
				return layer
			}
		}
	}
	switch {
	case pkg == "undo" || pkg == "diagnostics" || strings.HasPrefix(pkg, "internal/"):
		return helpers
	case strings.HasPrefix(pkg, "bench/"):
		return benchmarks
	}
	return unplaced
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

// violations lists the packages no layer holds and the imports that
// follow no allowed arrow.
func violations(graph map[string][]string) []string {
	var bad []string
	for pkg, deps := range graph {
		from := layerOf(pkg)
		if from == unplaced {
			bad = append(bad, pkg+" is in no layer: add it to members")
			continue
		}
		for _, dep := range deps {
			to := layerOf(dep)
			ok := false
			for _, l := range allowed[from] {
				ok = ok || l == to
			}
			if !ok {
				bad = append(bad, pkg+" ("+from+") imports "+dep+" ("+to+"), an arrow the layers do not allow")
			}
		}
	}
	sort.Strings(bad)
	return bad
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
	// A package named in a layer that is no longer there would make the
	// layers say what the code does not.
	for layer, pkgs := range members {
		for _, p := range pkgs {
			if _, ok := graph[p]; !ok {
				t.Errorf("layer %q names %s, which has no Go files", layer, p)
			}
		}
	}
}

// The check itself must catch each wrong arrow, and let the right ones by.
func TestViolationsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		pkg, dep string
	}{
		{"internal/stores", "tools"},
		{"internal/stores", "internal/tool"},
		{"internal/stores", "internal/compose"},
		{"internal/workspace", "daemon"},
		{"undo", "internal/tool"},
		{"diagnostics", "tools"},
		{"tools", "cmd/tether"},
		{"tools", "daemon"},
		{"internal/tool", "tools"},
		{"internal/tool", "internal/agent"},
		{"internal/compose", "tools"},
		{"internal/agent", "internal/mcp"},
		{"daemon", "cmd/tether"},
		{"daemon", "internal/mcp"},
		{"daemon", "internal/compose"},
		{"protocol", "internal/tool"},
		{"protocol", "undo"},
		{"internal/shell/cmdline", "internal/tool"},
		{"internal/manifest", "daemon"},
		{"internal/tool", "internal/rpctest"},
		{"tools", "internal/tool/tooltest"},
		{"bench/daemon", "daemon"},
		{"scratch", "protocol"}, // a new top-level package, in no layer
	} {
		if got := violations(map[string][]string{tc.pkg: {tc.dep}}); len(got) != 1 {
			t.Errorf("%s → %s: %v", tc.pkg, tc.dep, got)
		}
	}
	for _, tc := range []struct {
		pkg, dep string
	}{
		{"cmd/tether", "daemon"},
		{"cmd/tether", "internal/mcp"},
		{"daemon", "tools"},
		{"internal/mcp", "internal/tool"},
		{"tools", "internal/compose"},
		{"tools", "internal/tool"},
		{"internal/compose", "internal/tool"},
		{"internal/agent", "internal/diff"},
		{"internal/tool", "undo"},
		{"internal/tool", "internal/stores"},
		{"internal/stores", "undo"},
		{"undo", "internal/fsatomic"},
		{"internal/newhelper", "protocol"},
		{"internal/tool/tooltest", "internal/tool"},
		{"internal/manifest/cmd/gen", "tools"},
		{"bench/web", "internal/web/webtest"},
	} {
		if got := violations(map[string][]string{tc.pkg: {tc.dep}}); len(got) != 0 {
			t.Errorf("%s → %s flagged: %v", tc.pkg, tc.dep, got)
		}
	}
}

// docs/architecture.md's repository layout names every package's folder
// (the top-level ones and each under internal/), and no path that is not
// there.
func TestArchitectureDocNamesEveryPackage(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "## Repository layout\n")
	if !ok {
		t.Fatal("docs/architecture.md has no Repository layout section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "| "), " |")
		for _, p := range strings.Split(first, ", ") {
			p = strings.TrimSuffix(strings.Trim(p, "`"), "/")
			named[p] = true
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				t.Errorf("the layout names %s, which is not there", p)
			}
		}
	}
	for pkg := range imports(t, root) {
		parts := strings.Split(pkg, "/")
		top := parts[0]
		if (top == "internal" || top == "cmd") && len(parts) > 1 {
			top += "/" + parts[1]
		}
		if !named[top] {
			t.Errorf("the layout does not name %s (for package %s)", top, pkg)
		}
	}
}

// docs/architecture.md's table of the layers names the packages of each
// as this test places them.
func TestArchitectureDocNamesTheLayers(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "## The layers\n")
	if !ok {
		t.Fatal("docs/architecture.md has no section The layers")
	}
	table, _, _ = strings.Cut(table, "\n\n`")
	code := regexp.MustCompile("`([a-z/]+)`")
	seen := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, " | ")
		if len(cells) < 3 || !strings.HasPrefix(row, "| ") {
			continue
		}
		layer := strings.TrimPrefix(cells[0], "| ")
		if layer == "layer" || strings.HasPrefix(layer, "---") {
			continue
		}
		seen[layer] = true
		var pkgs []string
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			pkg := strings.TrimSuffix(m[1], "/")
			if pkg == "internal" {
				continue // "the other internal/ packages"
			}
			pkgs = append(pkgs, pkg)
			if got := layerOf(pkg); got != layer {
				t.Errorf("the doc puts %s among the %s; the test, among the %s", pkg, layer, got)
			}
		}
		if want, ok := members[layer]; ok {
			sort.Strings(pkgs)
			want = append([]string(nil), want...)
			sort.Strings(want)
			if strings.Join(pkgs, " ") != strings.Join(want, " ") {
				t.Errorf("the doc's %s are %v; the test's, %v", layer, pkgs, want)
			}
		}
	}
	for _, layer := range []string{binary, servers, toolSet, runners, framework, helpers, contract} {
		if !seen[layer] {
			t.Errorf("the doc's table has no row for the %s", layer)
		}
	}
}
