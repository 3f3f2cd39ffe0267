package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/mcp"
	"github.com/tether-dev/tether/protocol"
)

// Every way a change can end gives structured content that says so, valid
// against the tool's declared outputSchema, and a text that holds the same
// facts: a change that did not happen never carries a diff or a checkpoint.
func TestStructuredContentOfEveryOutcome(t *testing.T) {
	answer := func(a string) *sdk.ClientOptions {
		return &sdk.ClientOptions{ElicitationHandler: (&elicitor{action: "accept", content: map[string]any{"answer": a}}).handle}
	}
	edit := map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"}
	for _, tc := range []struct {
		name    string
		client  *sdk.ClientOptions
		args    []string
		tool    string
		call    map[string]any
		noRead  bool // the edit is tried without reading the file first
		want    protocol.ChangeStatus
		changed bool   // a.txt holds "two" afterwards
		says    string // in the message
	}{
		{name: "written", client: answer("yes"), tool: "edit_file", call: edit, want: protocol.StatusWritten, changed: true, says: "a.txt"},
		{name: "unchanged", client: answer("yes"), tool: "write_file", call: map[string]any{"path": "a.txt", "content": "one\n"}, want: protocol.StatusUnchanged, says: "already holds"},
		{name: "staged", args: []string{"--mode", "dryRun"}, tool: "edit_file", call: edit, want: protocol.StatusStaged, says: "staged"},
		{name: "declined", client: answer("no"), tool: "edit_file", call: edit, want: protocol.StatusDeclined, says: "The user declined"},
		{name: "skipped", client: answer("skip"), tool: "edit_file", call: edit, want: protocol.StatusSkipped, says: "skipped"},
		{name: "refused by the mode", args: []string{"--mode", "plan"}, tool: "edit_file", call: edit, want: protocol.StatusRefused, says: "plan"},
		{name: "refused by a guard", client: answer("yes"), tool: "edit_file", call: edit, noRead: true, want: protocol.StatusRefused, says: "read"},
		{name: "refused: nobody to ask", tool: "edit_file", call: edit, want: protocol.StatusRefused, says: "elicitation"},
		{name: "memory write declined", client: answer("no"), tool: "remember", call: map[string]any{"name": "style", "text": "tabs"}, noRead: true, want: protocol.StatusDeclined, says: "The user declined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, "a.txt", "one\n")
			s := f.connect(t, newClient(tc.client), v1125, tc.args...)
			schema := outputSchema(t, s, tc.tool)
			if !tc.noRead {
				mustOK(t, "read_file", s.call(t, "read_file", map[string]any{"path": "a.txt"}))
			}
			res := s.call(t, tc.tool, tc.call)
			var got mcp.ChangeResult
			structured(t, res, &got)
			validate(t, schema, res.StructuredContent)
			if got.Status != tc.want {
				t.Fatalf("status %q, want %q; message: %s", got.Status, tc.want, got.Message)
			}
			if !strings.Contains(got.Message, tc.says) {
				t.Errorf("the message lacks %q: %s", tc.says, got.Message)
			}
			ok := tc.want == protocol.StatusWritten || tc.want == protocol.StatusUnchanged || tc.want == protocol.StatusStaged
			if res.IsError == ok {
				t.Errorf("isError %v for status %s", res.IsError, got.Status)
			}
			if tc.want != protocol.StatusWritten && tc.want != protocol.StatusStaged && got.Diff != "" {
				t.Errorf("a change that did not happen carries a diff: %q", got.Diff)
			}
			if (tc.want == protocol.StatusWritten) != (got.Checkpoint != "") {
				t.Errorf("status %s with checkpoint %q: only a written change has one", got.Status, got.Checkpoint)
			}
			if (tc.want == protocol.StatusWritten || tc.want == protocol.StatusStaged) && !strings.Contains(got.Diff, "+two") {
				t.Errorf("the diff of what was %s is missing: %q", got.Status, got.Diff)
			}
			if !strings.HasPrefix(got.RequestID, "mcp-") {
				t.Errorf("requestId %q", got.RequestID)
			}
			// The text holds the same facts, for clients that read only it.
			txt := text(res)
			for _, fact := range []string{got.Message, got.Diff, got.Checkpoint, "Status: " + string(got.Status) + "."} {
				if !strings.Contains(txt, strings.TrimRight(fact, "\n")) {
					t.Errorf("the text lacks %q:\n%s", fact, txt)
				}
			}
			if tc.want != protocol.StatusWritten && strings.Contains(txt, "tether undo") {
				t.Errorf("the text of a change that did not happen names an undo checkpoint:\n%s", txt)
			}
			if want := map[bool]string{true: "two\n", false: "one\n"}[tc.changed]; f.read(t, "a.txt") != want {
				t.Errorf("a.txt holds %q, want %q", f.read(t, "a.txt"), want)
			}
		})
	}
}

// outputSchema is the named tool's declared outputSchema, resolved.
func outputSchema(t *testing.T, s *session, name string) *jsonschema.Resolved {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name != name {
			continue
		}
		if tl.OutputSchema == nil {
			t.Fatalf("%s declares no outputSchema", name)
		}
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatalf("%s's outputSchema %s: %v", name, raw, err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s's outputSchema does not resolve: %v", name, err)
		}
		return r
	}
	t.Fatalf("%s is not listed", name)
	return nil
}

// validate checks structured content against a tool's outputSchema, as a
// strict client does.
func validate(t *testing.T, schema *jsonschema.Resolved, content any) {
	t.Helper()
	raw, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("structured content %s does not match the outputSchema: %v", raw, err)
	}
}
