package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// TestGeneratedFilesUpToDate is the drift check: package.json and
// protocol.ts must be what the registry and the protocol generate.
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
		t.Errorf("%s: run `npm run generate` (or `go generate ./internal/manifest`) and commit the result", d)
	}
}

func TestDriftIsDetected(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	copyFile(t, filepath.Join(root, "go.mod"), filepath.Join(tmp, "go.mod"))
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
	write(PackageJSONPath, files[PackageJSONPath])
	write(ProtocolTSPath, files[ProtocolTSPath])
	if drift, err := Drift(tmp, tools.Builtin().Infos(nil)); err != nil || len(drift) != 0 {
		t.Fatalf("fresh output reported as drift: %v %v", drift, err)
	}

	stale := bytes.Replace(files[PackageJSONPath], []byte(`"tether_read_file"`), []byte(`"tether_read_fil"`), 1)
	write(PackageJSONPath, stale)
	if drift, _ := Drift(tmp, tools.Builtin().Infos(nil)); len(drift) != 1 || !strings.Contains(drift[0], "languageModelTools") {
		t.Errorf("renamed tool not reported: %v", drift)
	}
	write(PackageJSONPath, files[PackageJSONPath])

	write(ProtocolTSPath, append(files[ProtocolTSPath], "// hand edit\n"...))
	if drift, _ := Drift(tmp, tools.Builtin().Infos(nil)); len(drift) != 1 || !strings.Contains(drift[0], ProtocolTSPath) {
		t.Errorf("edited protocol.ts not reported: %v", drift)
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

func TestProtocolTSCoversEveryMethod(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ProtocolTS(filepath.Join(root, protocolDir))
	if err != nil {
		t.Fatal(err)
	}
	s := string(ts)
	for _, m := range []string{protocol.MethodInitialize, protocol.MethodToolsCall, protocol.MethodApprovalRequest, protocol.MethodCancelRequest} {
		if !strings.Contains(s, `= "`+m+`";`) {
			t.Errorf("method %s missing", m)
		}
	}
	for _, typ := range ProtocolTypes {
		if !strings.Contains(s, "export interface "+typ.Name()+" {") {
			t.Errorf("interface %s missing", typ.Name())
		}
	}
	for _, want := range []string{
		"content?: string;",         // *string with omitempty
		"hunks?: Hunk[];",           // slice with omitempty
		"options: string[] | null;", // slice without omitempty can be null
		"risk: Risk;",               // named string type with constants
		`export type Risk = "low" | "medium" | "high";`,
		"export type ToolPrepareParams = ToolCallParams;", // alias
		"diagnostics: Diagnostic[] | null;",               // external LSP type
		"export const Modes = [ModeDefault,",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("protocol.ts lacks %q", want)
		}
	}
}

func TestTSTypeRejectsWhatItCannotMap(t *testing.T) {
	g := &tsGen{src: &source{unions: map[string][]string{}}, emitted: map[reflect.Type]bool{}}
	for _, typ := range []reflect.Type{reflect.TypeFor[chan int](), reflect.TypeFor[bytes.Buffer](), reflect.TypeFor[struct{ A int }]()} {
		if s, err := g.tsType(typ); err == nil {
			t.Errorf("%v mapped to %q, want an error", typ, s)
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
