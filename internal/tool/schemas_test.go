package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type tableArgs struct {
	Path  string `json:"path"`
	Count int    `json:"count,omitempty"`
}

// TestBuiltSchemaIsListedAndTheCallsStillChecked: a tool the built table
// has is listed with the table's schema, not an inferred one; its calls
// are checked against that schema; and its argument errors still name
// the arguments, from the schema inferred when needed. A tool the table
// does not have is listed with the inferred schema.
func TestBuiltSchemaIsListedAndTheCallsStillChecked(t *testing.T) {
	tune := func(s *jsonschema.Schema) { s.Properties["count"].Minimum = jsonschema.Ptr(1.0) }
	def := Def[tableArgs]{Name: "table", Doc: "d", Tune: tune, Run: func(_ context.Context, _ *Call, a tableArgs) (Result, error) {
		return Result{Content: a.Path}, nil
	}}
	inTable, notInTable := New(def), New(Def[tableArgs]{Name: "other", Doc: "d", Tune: tune, Run: def.Run})
	inferred, err := InferredSchema(inTable)
	if err != nil {
		t.Fatal(err)
	}
	// The table's schema differs from the inference by a description only,
	// so that which one is listed shows.
	var s map[string]any
	if err := json.Unmarshal(inferred, &s); err != nil {
		t.Fatal(err)
	}
	s["description"] = "from the table"
	table, _ := json.Marshal(s)
	saved := builtSchema
	t.Cleanup(func() { builtSchema = saved })
	var asked []string
	SetBuiltSchemas(func(key string) (string, bool) {
		asked = append(asked, key)
		if key == SchemaKey(inTable) {
			return string(table), true
		}
		return "", false
	})
	if want := "table tool.tableArgs"; SchemaKey(inTable) != want {
		t.Errorf("the key is %q, want %q", SchemaKey(inTable), want)
	}
	if got := inTable.Info(&Settings{}).InputSchema; string(got) != string(table) {
		t.Errorf("listed with %s, want the table's %s", got, table)
	}
	if got := notInTable.Info(&Settings{}).InputSchema; string(got) != string(inferred) {
		t.Errorf("a tool the table lacks is listed with %s, want the inferred %s", got, inferred)
	}
	if len(asked) != 2 {
		t.Errorf("the table was asked %d times (%q), want once a tool", len(asked), asked)
	}
	run := func(args string) Result {
		r, err := inTable.Run(context.Background(), &Call{Name: "table", Args: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run(`{"path":"a.go","count":2}`); r.IsError || r.Content != "a.go" {
		t.Errorf("a good call: %+v", r)
	}
	if r := run(`{"path":"a.go","count":0}`); !r.IsError || !strings.Contains(r.Content, "count") {
		t.Errorf("a count under the minimum: %+v", r)
	}
	if r := run(`{"path":"a.go","cuont":2}`); !r.IsError || !strings.Contains(r.Content, `"cuont"`) || !strings.Contains(r.Content, "count? (integer)") {
		t.Errorf("a misspelt argument: %+v", r)
	}
}
