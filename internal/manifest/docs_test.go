package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/tools"
)

// TestReferencePagesUpToDate is the drift check of docs/tools.md and
// docs/settings.md: they must be what the registry and the settings
// generate.
func TestReferencePagesUpToDate(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	drift, err := DocsDrift(root, ToolDocs(tools.Builtin().Tools()))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		t.Errorf("%s: run `npm run generate` (or `go generate ./internal/manifest`) and commit the result", d)
	}
}

func TestDocsDriftIsDetected(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, n := range goFiles(t, filepath.Join(root, protocolDir)) {
		copyFile(t, filepath.Join(root, protocolDir, n), filepath.Join(tmp, protocolDir, n))
	}
	docs := ToolDocs(tools.Builtin().Tools())
	if changed, err := WriteDocs(tmp, docs); err != nil || len(changed) != len(DocPaths) {
		t.Fatalf("first write: %v %v", changed, err)
	}
	if drift, err := DocsDrift(tmp, docs); err != nil || len(drift) != 0 {
		t.Fatalf("fresh pages reported as drift: %v %v", drift, err)
	}
	for _, rel := range DocPaths {
		path := filepath.Join(tmp, rel)
		fresh, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(fresh, "a hand edit\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		if drift, _ := DocsDrift(tmp, docs); len(drift) != 1 || !strings.Contains(drift[0], rel) {
			t.Errorf("edited %s not reported: %v", rel, drift)
		}
		if err := os.WriteFile(path, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A tool's description changing is drift too.
	docs[0].Info.Description += " More."
	if drift, _ := DocsDrift(tmp, docs); len(drift) != 1 || !strings.Contains(drift[0], ToolsDocPath) {
		t.Errorf("a changed description not reported: %v", drift)
	}
}

// The protocol's doc comments state some defaults too ("default 20"),
// which docs/protocol.md and protocol.ts carry: each must be the default
// in force.
func TestProtocolCommentsStateTheDefaultsInForce(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src, err := parseSource(filepath.Join(root, protocolDir))
	if err != nil {
		t.Fatal(err)
	}
	goNames := map[string]string{}
	for _, f := range settingsFields() {
		goNames[f.json] = f.goName
	}
	stated := 0
	for _, s := range tool.SettingList() {
		doc := strings.Join(strings.Fields(src.docs["Settings."+goNames[s.Name]]), " ")
		m := statedDefault.FindStringSubmatch(doc)
		if m == nil {
			continue
		}
		stated++
		said := strings.Trim(strings.TrimSpace(m[2]), `"`)
		if _, err := strconv.Atoi(s.Default); err == nil {
			if got := statedNumber(said); got != s.Default {
				t.Errorf("protocol.Settings.%s says the default is %q (%s), the code's is %s", goNames[s.Name], said, got, s.Default)
			}
			continue
		}
		if !strings.HasPrefix(strings.ReplaceAll(s.Default, "`", ""), said) {
			t.Errorf("protocol.Settings.%s says the default is %q, the code's is %q", goNames[s.Name], said, s.Default)
		}
	}
	if stated < 10 {
		t.Fatalf("found %d stated defaults; the comments state more: the pattern no longer finds them", stated)
	}
}

// statedNumber reads "20", "10 MiB" or "64 MB" as a number of units.
func statedNumber(s string) string {
	num, unit, _ := strings.Cut(s, " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		return "not a number"
	}
	switch unit {
	case "MiB", "MB":
		n <<= 20
	case "KiB", "KB":
		n <<= 10
	}
	return strconv.Itoa(n)
}

func TestToolArgumentsKeepTheSchemasOrderAndNesting(t *testing.T) {
	args, err := arguments(json.RawMessage(`{"type":"object","properties":{
		"path":{"type":"string","minLength":1},
		"edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{"old":{"type":"string"},"all":{"type":"boolean"}},"required":["old"]}},
		"count":{"type":["null","integer"],"minimum":1,"maximum":20,"description":"How many."},
		"mode":{"type":"string","enum":["a","b"]}},
		"required":["path","edits"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []argument{
		{"path", "string, not empty", "", true},
		{"edits", "list of objects, at least 1 item", "", true},
		{"edits[].old", "string", "", true},
		{"edits[].all", "boolean", "", false},
		{"count", "null or integer, 1 to 20", "How many.", false},
		{"mode", "string, one of `a`, `b`", "", false},
	}
	if len(args) != len(want) {
		t.Fatalf("got %+v", args)
	}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("argument %d: %+v, want %+v", i, args[i], want[i])
		}
	}
}
