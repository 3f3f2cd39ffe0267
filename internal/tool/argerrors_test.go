package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type probeArgs struct {
	Path    string   `json:"path"`
	Offset  int      `json:"offset,omitempty"`
	Context int      `json:"context,omitempty"`
	Ratio   *float64 `json:"ratio,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	Items   []struct {
		Status string `json:"status"`
	} `json:"items,omitempty"`
	Flag bool `json:"flag,omitempty"`
}

var probe = New(Def[probeArgs]{
	Name: "probe",
	Tune: func(s *jsonschema.Schema) {
		s.Properties["offset"].Minimum = jsonschema.Ptr(1.0)
		s.Properties["context"].Minimum = jsonschema.Ptr(0.0)
		s.Properties["context"].Maximum = jsonschema.Ptr(20.0)
		s.Properties["pattern"].MinLength = jsonschema.Ptr(1)
		s.Properties["items"].MaxItems = jsonschema.Ptr(3)
		s.Properties["items"].Items.Properties["status"].Enum = []any{"pending", "done"}
	},
	Run: func(context.Context, *Call, probeArgs) (Result, error) { return Text("ran"), nil },
})

// TestArgumentErrorsNameTheArgumentAndItsRange checks that every kind of
// bad argument is answered with the argument's name and what it accepts,
// in words, and never with the decoder's or the validator's own wording.
func TestArgumentErrorsNameTheArgumentAndItsRange(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"path":"a","offset":9223372036854775808}`, "offset must be a whole number from 1 to 9223372036854775807; it was 9223372036854775808"},
		{`{"path":"a","offset":1e300}`, "offset must be a whole number from 1 to 9223372036854775807; it was 1e300"},
		{`{"path":"a","offset":0}`, "offset must be a whole number from 1 to 9223372036854775807; it was 0"},
		{`{"path":"a","offset":2.5}`, "offset must be a whole number from 1 to 9223372036854775807; it was 2.5"},
		{`{"path":"a","offset":"3"}`, `offset must be a whole number from 1 to 9223372036854775807; it was the string "3"`},
		{`{"path":"a","context":21}`, "context must be a whole number from 0 to 20; it was 21"},
		{`{"path":"a","ratio":"x"}`, `ratio must be a number; it was the string "x"`},
		{`{"path":"a","pattern":""}`, `pattern must be a non-empty string`},
		{`{"path":"a","flag":"yes"}`, `flag must be true or false; it was the string "yes"`},
		{`{"path":"a","items":[{"status":"x"}]}`, `items[0].status must be one of pending, done; it was the string "x"`},
		{`{"path":"a","items":[{},{},{},{}]}`, `items must be a list of objects with status, at most 3; it had 4`},
		{`{"offset":1}`, "path is required: a string"},
		{`{"path":7}`, "path must be a string; it was 7"},
		{`[1]`, "arguments must be a JSON object"},
		{`{"path":"a","bogus":1}`, `unknown argument "bogus"`},
	}
	for _, tt := range tests {
		r, err := probe.Run(context.Background(), &Call{Args: json.RawMessage(tt.args)})
		if err != nil || !r.IsError {
			t.Errorf("%s: accepted (%v %+v)", tt.args, err, r)
			continue
		}
		if !strings.Contains(r.Content, tt.want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.args, r.Content, tt.want)
		}
		for _, noise := range []string{"json:", "Go struct", "/properties/", "minimum:", "maximum:", "1.000000"} {
			if strings.Contains(r.Content, noise) {
				t.Errorf("%s: the message carries %q: %s", tt.args, noise, r.Content)
			}
		}
	}
	if r, _ := probe.Run(context.Background(), &Call{Args: json.RawMessage(`{"path":"a","offset":9223372036854775807}`)}); r.IsError {
		t.Errorf("the largest int was refused: %s", r.Content)
	}
}
