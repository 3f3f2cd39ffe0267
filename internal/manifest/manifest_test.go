package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// TestGeneratedFilesUpToDate is the drift check: package.json's tools,
// protocol.ts and protocol.md must be what the registry and the protocol
// generate. Each stale file is reported with the diff regenerating makes.
func TestGeneratedFilesUpToDate(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	drift, err := Drift(root, tools.Builtin().Infos(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		t.Errorf("run `npm run generate` (or `go generate ./internal/manifest`) and commit the result: %s", d)
	}
}

// TestBuiltDescriptionsUpToDate: the table of descriptions built into the
// program is what the tools render for the default settings, the tools
// are listed with it, and a setting that changes a description misses it.
func TestBuiltDescriptionsUpToDate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the table holds the descriptions as rendered on Linux; here the shell's differs, and misses it")
	}
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	ts := tools.Builtin().Tools()
	d, err := DescriptionsDrift(root, ts)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Errorf("run `go run ./internal/manifest/cmd/gen` and commit the result: %s is stale:\n%s", DescriptionsGoPath, d)
	}
	defaults, err := tool.NewSettings(protocol.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 7
	changed, err := tool.NewSettings(protocol.Settings{ShellTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range ts {
		if got, want := tl.Info(&defaults).Description, tool.RenderedDescription(tl, &defaults); got != want {
			t.Errorf("%s is listed with\n%s\nwant\n%s", tl.Name(), got, want)
		}
		if got, want := tl.Info(&changed).Description, tool.RenderedDescription(tl, &changed); got != want {
			t.Errorf("with the shell timeout at %d s, %s is listed with\n%s\nwant\n%s", timeout, tl.Name(), got, want)
		}
	}
	if shell, ok := tools.Builtin().Lookup("shell"); !ok || shell.Info(&changed).Description == shell.Info(&defaults).Description {
		t.Errorf("the shell's description is the same with its timeout at %d s as with the default", timeout)
	}
}

// TestBuiltSchemasUpToDate: the table of input schemas built into the
// program is what the tools' argument types infer, and the tools are
// listed with it.
func TestBuiltSchemasUpToDate(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	ts := tools.Builtin().Tools()
	d, err := SchemasDrift(root, ts)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Errorf("run `go run ./internal/manifest/cmd/gen` and commit the result: %s is stale:\n%s", SchemasGoPath, d)
	}
	for _, tl := range ts {
		want, err := tool.InferredSchema(tl)
		if err != nil {
			t.Fatal(err)
		}
		if got := tl.Info(nil).InputSchema; string(got) != string(want) {
			t.Errorf("%s is listed with %s, want the inferred %s", tl.Name(), got, want)
		}
	}
}

func TestDriftIsDetected(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	copyFile(t, filepath.Join(root, "go.mod"), filepath.Join(tmp, "go.mod"))
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(tmp, "go.sum"))
	for _, n := range goFiles(t, filepath.Join(root, protocolDir)) {
		copyFile(t, filepath.Join(root, protocolDir, n), filepath.Join(tmp, protocolDir, n))
	}
	files, err := Generated(root, tools.Builtin().Infos(nil))
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range generatedPaths {
		write(rel, files[rel])
	}
	if drift, err := Drift(tmp, tools.Builtin().Infos(nil)); err != nil || len(drift) != 0 {
		t.Fatalf("fresh output reported as drift: %v %v", drift, err)
	}

	// Each file, made stale, is reported alone, with a diff that shows the
	// line regenerating would restore.
	for _, tc := range []struct {
		rel, from, to, wantLine string
	}{
		{PackageJSONPath, `"tether_read_file"`, `"tether_read_fil"`, `+    "name": "tether_read_file",`},
		{ProtocolTSPath, "export const toolsCall = ", "export const toolCall = ", "+export const toolsCall = new RequestType<ToolCallParams, ToolCallResult, void>(MethodToolsCall);"},
		{ProtocolMDPath, "| [`tools/call`](#toolscall) |", "| [`tools/cal`](#toolscall) |", "+| [`tools/call`](#toolscall) | client → daemon |"},
	} {
		stale := bytes.Replace(files[tc.rel], []byte(tc.from), []byte(tc.to), 1)
		if bytes.Equal(stale, files[tc.rel]) {
			t.Fatalf("%s: %q not found in the generated file", tc.rel, tc.from)
		}
		write(tc.rel, stale)
		drift, err := Drift(tmp, tools.Builtin().Infos(nil))
		if err != nil || len(drift) != 1 || drift[0].Path != tc.rel {
			t.Fatalf("%s edited: drift %v, %v", tc.rel, drift, err)
		}
		if !strings.Contains(drift[0].Diff, "\n"+tc.wantLine) || !strings.Contains(drift[0].String(), drift[0].Diff) {
			t.Errorf("%s: the report does not show the change:\n%s", tc.rel, drift[0])
		}
		write(tc.rel, files[tc.rel])
	}
	if err := os.Remove(filepath.Join(tmp, ProtocolMDPath)); err != nil {
		t.Fatal(err)
	}
	if drift, _ := Drift(tmp, tools.Builtin().Infos(nil)); len(drift) != 1 || drift[0].Path != ProtocolMDPath {
		t.Errorf("a missing protocol.md not reported: %v", drift)
	}
}

func TestRewriteKeepsTheRestOfPackageJSON(t *testing.T) {
	in := []byte(`{"name":"x","contributes":{"commands":[{"command":"a"}],"languageModelTools":[{"name":"old"}],"views":{}},"scripts":{"b":"<&>"}}`)
	tools := LanguageModelTools([]protocol.ToolInfo{{Name: "grep", Description: "Search. More.", InputSchema: json.RawMessage(`{"type":"object"}`)}})
	out, err := RewritePackageJSON(in, tools)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{`"name": "x"`, `"command": "a"`, `"views": {}`, `"b": "<&>"`, `"name": "tether_grep"`, `"userDescription": "Search."`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, `"old"`) {
		t.Errorf("old tools kept:\n%s", s)
	}
	order := []string{`"name": "x"`, `"contributes"`, `"commands"`, `"languageModelTools"`, `"views"`, `"scripts"`}
	last := -1
	for _, k := range order {
		i := strings.Index(s, k)
		if i < last {
			t.Errorf("%s moved: key order not kept:\n%s", k, s)
		}
		last = i
	}
	again, err := RewritePackageJSON(out, tools)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out) {
		t.Errorf("rewriting twice is not stable:\n%s\n---\n%s", out, again)
	}
}

func TestRewriteAddsMissingContributes(t *testing.T) {
	out, err := RewritePackageJSON([]byte(`{"name":"x"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"languageModelTools": []`) {
		t.Errorf("no empty languageModelTools:\n%s", out)
	}
}

func TestRewriteRejectsBrokenJSON(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"a":}`, `{"a":1} {}`, `{"contributes":[]}`} {
		if _, err := RewritePackageJSON([]byte(in), nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestLanguageModelToolsEntries(t *testing.T) {
	infos := tools.Builtin().Infos(nil)
	entries := LanguageModelTools(infos)
	if len(entries) != len(infos) {
		t.Fatalf("%d entries for %d tools", len(entries), len(infos))
	}
	for i, e := range entries {
		info := infos[i]
		if e.Name != ToolPrefix+info.Name || e.ToolReferenceName != info.Name {
			t.Errorf("%s: name %q, reference %q", info.Name, e.Name, e.ToolReferenceName)
		}
		if e.ModelDescription != info.Description || e.UserDescription == "" || e.DisplayName == "" {
			t.Errorf("%s: descriptions %+v", info.Name, e)
		}
		if !e.CanBeReferencedInPrompt || !strings.HasPrefix(e.Icon, "$(") || len(e.Tags) == 0 {
			t.Errorf("%s: %+v", info.Name, e)
		}
		if !bytes.Equal(e.InputSchema, info.InputSchema) {
			t.Errorf("%s: schema differs from the registry's", info.Name)
		}
	}
}

func TestToolEntryFallbacks(t *testing.T) {
	e := LanguageModelTools([]protocol.ToolInfo{{Name: "brand_new_tool", Description: "Does a thing. Then more."}})[0]
	want := LanguageModelTool{
		Name: "tether_brand_new_tool", DisplayName: "Brand New Tool", ToolReferenceName: "brand_new_tool",
		CanBeReferencedInPrompt: true, Icon: defaultIcon, UserDescription: "Does a thing.",
		ModelDescription: "Does a thing. Then more.", Tags: []string{"tether", "tether-changes"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("got %+v\nwant %+v", e, want)
	}
}

func testModel(t *testing.T) *model {
	t.Helper()
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadModel(root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestProtocolTSCoversEveryMethod(t *testing.T) {
	m := testModel(t)
	s := string(ProtocolTS(m))
	for _, pm := range protocol.Methods {
		if !strings.Contains(s, `= "`+pm.Name()+`";`) {
			t.Errorf("method %s: no constant with its name", pm.Name())
		}
	}
	if len(m.methods) != len(protocol.Methods) {
		t.Fatalf("%d methods in the model, %d in the table", len(m.methods), len(protocol.Methods))
	}
	for _, mi := range m.methods {
		decl := "export const " + lowerFirst(mi.goName) + " = new "
		i := strings.Index(s, decl)
		if i < 0 {
			t.Errorf("%s: no %q", mi.Name(), decl)
			continue
		}
		line := s[i : i+strings.IndexByte(s[i:], '\n')]
		kind := "RequestType"
		if mi.Result() == nil {
			kind = "NotificationType"
		}
		if !strings.HasPrefix(line, decl+kind) {
			t.Errorf("%s is declared as %s", mi.Name(), line)
		}
		for _, typ := range []reflect.Type{mi.Params(), mi.Result()} {
			if typ != nil && typ.Kind() == reflect.Struct && typ.NumField() > 0 && !strings.Contains(s, "export interface "+typ.Name()+" {") {
				t.Errorf("%s: interface %s missing", mi.Name(), typ.Name())
			}
		}
	}
	for _, want := range []string{
		"content?: string;",         // *string with omitempty
		"hunks?: Hunk[];",           // slice with omitempty
		"options: string[] | null;", // slice without omitempty can be null
		"risk: Risk;",               // named string type with constants
		`export type Risk = "low" | "medium" | "high";`,
		"export type ToolPrepareParams = ToolCallParams;", // alias
		"diagnostics: Diagnostic[] | null;",               // LSP type, by reflection
		"export type DiagnosticSeverity = 1 | 2 | 3 | 4;", // LSP constants, from its source
		"export interface Position {\n",
		"severity?: DiagnosticSeverity;",
		"export type DocumentURI = string;",
		"export type None = Record<string, never>;",
		"export const shutdown = new RequestType0<null, void>(MethodShutdown);",
		"export const exit = new NotificationType0(MethodExit);",
		"export const toolsPrepare = new RequestType<ToolPrepareParams, ToolPrepareResult, void>(MethodToolsPrepare);",
		"export const logMessage = new NotificationType<LogMessageParams>(MethodLogMessage);",
		"export const Modes = [ModeDefault,",
		"tools/call (client → daemon): runs one tool.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("protocol.ts lacks %q", want)
		}
	}
	if strings.Contains(s, "export const Methods") {
		t.Error("the table of methods was written as a list of constants")
	}
}

// protocol.md lists every method with its direction and types, and holds
// every field's doc comment.
func TestProtocolMDListsEveryMethod(t *testing.T) {
	m := testModel(t)
	b, err := ProtocolMD(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, pm := range protocol.Methods {
		row := fmt.Sprintf("| [`%s`](#", pm.Name())
		if !strings.Contains(s, row) || !strings.Contains(s, "\n### `"+pm.Name()+"`\n") {
			t.Errorf("%s is not listed with a section of its own", pm.Name())
		}
		i := strings.Index(s, row)
		if i >= 0 && !strings.Contains(s[i:i+strings.IndexByte(s[i:], '\n')], pm.Direction().String()) {
			t.Errorf("%s: its row does not say %v", pm.Name(), pm.Direction())
		}
	}
	for _, n := range m.types {
		if !strings.Contains(s, "\n### "+n.name+"\n") {
			t.Errorf("type %s has no section", n.name)
		}
		for _, f := range n.fields {
			if f.doc != "" && !strings.Contains(s, inline(f.doc)) {
				t.Errorf("%s.%s: its comment is not in the document", n.name, f.goName)
			}
		}
	}
	// Every link goes to a heading that exists.
	for _, link := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(s, -1) {
		found := false
		for _, heading := range regexp.MustCompile("(?m)^### (.+)$").FindAllStringSubmatch(s, -1) {
			g := &mdGen{anchors: map[string]string{}}
			if err := g.anchor("x", heading[1]); err == nil && g.anchors["x"] == link[1] {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("link #%s leads nowhere", link[1])
		}
	}
}

func TestExprRejectsWhatItCannotMap(t *testing.T) {
	m := testModel(t)
	for _, typ := range []reflect.Type{reflect.TypeFor[chan int](), reflect.TypeFor[bytes.Buffer](), reflect.TypeFor[struct{ A int }](), reflect.TypeFor[map[int]string]()} {
		if e, err := m.exprOf(typ); err == nil {
			t.Errorf("%v mapped to %q, want an error", typ, tsExpr(e))
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			out = append(out, e.Name())
		}
	}
	return out
}

// The approval tool the extension implements follows the registry's tools,
// hidden from the model and from tool sets that pick Tether's tools by tag.
func TestClientToolsFollowTheRegistry(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generated(root, tools.Builtin().Infos(nil))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			LanguageModelTools []LanguageModelTool `json:"languageModelTools"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(files[PackageJSONPath], &pkg); err != nil {
		t.Fatal(err)
	}
	all := pkg.Contributes.LanguageModelTools
	last := all[len(all)-1]
	if last.Name != ApprovalToolName || last.When != "false" || last.CanBeReferencedInPrompt {
		t.Fatalf("last tool = %+v", last)
	}
	for _, tag := range last.Tags {
		if tag == "tether" {
			t.Error("the approval tool carries the tether tag, so agents picking Tether's tools would offer it")
		}
	}
	for _, tool := range all[:len(all)-1] {
		if tool.When != "" {
			t.Errorf("%s has a when clause %q", tool.Name, tool.When)
		}
	}
}

// The statements the generator breaks are broken as prettier would, so
// that the format check of `npm test` passes on protocol.ts: no line of
// code is longer than printWidth, and each breaking rule is exercised.
func TestProtocolTSLinesFitPrintWidth(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".prettierrc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ PrintWidth int }
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.PrintWidth != printWidth {
		t.Fatalf(".prettierrc.json has printWidth %d, the generator breaks lines at %d", cfg.PrintWidth, printWidth)
	}

	m := testModel(t)
	for i, line := range strings.Split(string(ProtocolTS(m)), "\n") {
		code, _, _ := strings.Cut(line, " // ")
		if strings.HasPrefix(strings.TrimSpace(code), "*") || strings.HasPrefix(strings.TrimSpace(code), "/*") {
			continue // prettier leaves comments as they are
		}
		if !fits(code) {
			t.Errorf("protocol.ts:%d is %d characters, over %d: %s", i+1, len([]rune(code)), printWidth, line)
		}
	}

	g := &tsGen{}
	long := strings.Repeat("x", printWidth)
	g.statement("export const a = [", []string{"b", "c"}, "] as const;")
	g.statement("export const l = [", []string{long, "c"}, "] as const;")
	g.alias("A", []string{`"a"`, `"b"`})
	g.alias("L", []string{`"` + long + `"`, `"b"`})
	want := "export const a = [b, c] as const;\n" +
		"export const l = [\n  " + long + ",\n  c,\n] as const;\n" +
		"export type A = \"a\" | \"b\";\n" +
		"export type L =\n  | \"" + long + "\"\n  | \"b\";\n"
	if got := g.buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
