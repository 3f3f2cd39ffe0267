package tool

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkArgs has a field for every keyword argCheck understands.
type checkArgs struct {
	Path  string   `json:"path"`
	Note  string   `json:"note,omitempty"` // a string with no keyword: only looked through
	Mode  string   `json:"mode,omitempty"`
	Count int      `json:"count,omitempty"`
	Ratio *float64 `json:"ratio,omitempty"`
	Flag  bool     `json:"flag,omitempty"`
	Tags  []string `json:"tags,omitempty"`
	Edits []struct {
		Old string `json:"old"`
		New string `json:"new"`
		All bool   `json:"all,omitempty"`
	} `json:"edits,omitempty"`
	Anything any `json:"anything,omitempty"`
}

func checkTool() *defTool[checkArgs] {
	t := New(Def[checkArgs]{
		Name: "check", Doc: "Checks.",
		Tune: func(s *jsonschema.Schema) {
			s.Properties["path"].MinLength = jsonschema.Ptr(1)
			s.Properties["path"].MaxLength = jsonschema.Ptr(8)
			s.Properties["mode"].Enum = []any{"a", "bé"}
			s.Properties["count"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["count"].Maximum = jsonschema.Ptr(10.0)
			s.Properties["ratio"].Types = nil
			s.Properties["ratio"].Type = "number"
			s.Properties["tags"].MinItems = jsonschema.Ptr(1)
			s.Properties["tags"].MaxItems = jsonschema.Ptr(3)
			s.Properties["edits"].Items.Properties["old"].MinLength = jsonschema.Ptr(1)
		},
	}).(*defTool[checkArgs])
	t.initDecode()
	if t.check == nil {
		panic("the test schema did not compile")
	}
	return t
}

var argSeeds = []string{
	`{"path":"a"}`, `{"path":""}`, `{"path":"123456789"}`, `{"path":"ééééééé"}`, `{"path":"a\u0062"}`, `{"path":5}`, `{"path":null}`,
	`{}`, `{"path":"a","mode":"a"}`, `{"path":"a","mode":"b\u00e9"}`, `{"path":"a","mode":"c"}`, `{"path":"a","mode":1}`,
	`{"path":"a","count":1}`, `{"path":"a","count":0}`, `{"path":"a","count":10.0}`, `{"path":"a","count":1.5}`, `{"path":"a","count":1e1}`, `{"path":"a","count":11}`, `{"path":"a","count":"2"}`,
	`{"path":"a","ratio":0.5}`, `{"path":"a","ratio":null}`, `{"path":"a","ratio":1e400}`, `{"path":"a","flag":true}`, `{"path":"a","flag":"true"}`,
	`{"path":"a","tags":[]}`, `{"path":"a","tags":["x"]}`, `{"path":"a","tags":["x","y","z","w"]}`, `{"path":"a","tags":[1]}`, `{"path":"a","tags":null}`,
	`{"path":"a","edits":[{"old":"x","new":"y"}]}`, `{"path":"a","edits":[{"old":"","new":"y"}]}`, `{"path":"a","edits":[{"old":"x"}]}`, `{"path":"a","edits":[{"old":"x","new":"y","extra":1}]}`,
	`{"path":"a","anything":{"deep":[1,{"x":null}]}}`, `{"path":"a","zzz":1}`, `{"p\u0061th":"a"}`, `{"path":"a","path":5}`, `{"path":5,"path":"a"}`,
	`[]`, `"x"`, `{"path":"a",}`, `{"path":"a"} x`, ` {"path" : "a" } `,
	// Strings argCheck only looks through: what is not valid JSON in them
	// is for the decoding to refuse.
	"{\"path\":\"a\",\"note\":\"x\x01y\"}", "{\"path\":\"a\",\"note\":\"x\ty\"}", `{"path":"a","note":"x\qy"}`, `{"path":"a","note":"x\u12"}`,
	`{"path":"a","note":"x\\\"y"}`, `{"path":"a","note":"x\\"}`, `{"path":"a","note":"x\"}`, `{"path":"a","note":"\u00e9\n"}`,
	"{\"path\":\"a\",\"edits\":[{\"old\":\"x\",\"new\":\"a\x01b\"}]}", "{\"path\":\"a\",\"tags\":[\"x\ny\"]}",
	`{"path":"a","edits":[{"old":"x","new":"a\qb"}]}`, `{"path":"a","tags":["x\"]}`, `{"path":"a","tags":["x\\"]}`, `{"path":"a","tags":["\u12"]}`,
	`{"path":"a","edits":[{"old":"x","new":"y\\\"z"}]}`, "{\"path\":\"a\",\"anything\":\"\x1f\"}", "{\"path\":\"a\",\"tags\":[\"\"\"]}",
}

// argCheck only ever says yes to what the validator accepts, and says yes
// to the ordinary calls, so they skip the validator.
func TestArgCheckAgreesWithTheValidator(t *testing.T) {
	tl := checkTool()
	for _, in := range argSeeds {
		agree(t, tl, []byte(in))
	}
	for _, in := range []string{`{"path":"a"}`, `{"path":"a","mode":"bé","count":3,"ratio":2,"flag":false,"tags":["x"],"edits":[{"old":"x","new":"y","all":true}],"anything":[]}`} {
		if !tl.check.ok([]byte(in)) {
			t.Errorf("argCheck refused %s, which is fine", in)
		}
	}
}

func FuzzArgCheckAgreesWithTheValidator(f *testing.F) {
	for _, in := range argSeeds {
		f.Add([]byte(in))
	}
	tl := checkTool()
	f.Fuzz(func(t *testing.T, in []byte) { agree(t, tl, in) })
}

func agree(t *testing.T, tl *defTool[checkArgs], in []byte) {
	t.Helper()
	if trimmed := strings.TrimSpace(string(in)); trimmed == "" || trimmed == "null" {
		return // taken for {} on purpose
	}
	if !json.Valid(in) {
		// argCheck may say yes: it finds a plain string's end without
		// checking what is inside, and leaves that to the decoding, which
		// must refuse it.
		if a, err := tl.decode(in); err == nil {
			t.Fatalf("decoded %q, which is not valid JSON, into %+v", in, a)
		}
		return
	}
	if tl.check.ok(in) {
		if err := tl.validate(in); err != nil {
			t.Fatalf("argCheck accepted %s; the validator says %v", in, err)
		}
		var a checkArgs
		if !json.Valid(in) || json.Unmarshal(in, &a) != nil && !isTypeError(json.Unmarshal(in, &a)) {
			t.Fatalf("argCheck accepted %s, which is not valid JSON", in)
		}
	}
}

func isTypeError(err error) bool {
	_, ok := err.(*json.UnmarshalTypeError)
	return ok
}

// Every built-in keyword compiles; an unknown one leaves the tool to the
// validator alone.
func TestArgCheckCompiles(t *testing.T) {
	if compileArgCheck([]byte(`{"type":"object","properties":{"p":{"type":"string","pattern":"^a"}}}`)) != nil {
		t.Error("a schema with pattern compiled")
	}
	if compileArgCheck([]byte(`{"type":"object","properties":{"p":{"type":"string"}},"additionalProperties":false}`)) == nil {
		t.Error("a plain schema did not compile")
	}
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Append  bool   `json:"append,omitempty"`
}

// BenchmarkDecodeArgs decodes a read's arguments and 1 MiB of
// write_file-shaped ones, three ways: checked in one pass and decoded in
// one more (decode, what every call does); checked in one pass and
// decoded by encoding/json (check+json); and the way before either,
// decoded into maps for the validator and then into the struct
// (validator).
func BenchmarkDecodeArgs(b *testing.B) {
	line := `	fmt.Printf("%d: %q\n", i, "a line of Go")` + "\n"
	big, _ := json.Marshal(writeArgs{Path: "big.go", Content: strings.Repeat(line, (1<<20)/len(line))})
	benchDecode(b, "read", []byte(`{"path":"internal/jsonscan/jsonscan.go","offset":10}`), New(Def[readArgs]{Name: "r", Doc: "d"}).(*defTool[readArgs]))
	benchDecode(b, "write1MiB", big, New(Def[writeArgs]{Name: "w", Doc: "d"}).(*defTool[writeArgs]))
}

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

func benchDecode[A any](b *testing.B, name string, raw []byte, tl *defTool[A]) {
	tl.initDecode()
	tl.resolve()
	b.Run(name+"/decode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := tl.decode(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/check+json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var a A
			if !tl.check.ok(raw) || json.Unmarshal(raw, &a) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run(name+"/validator", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var a A
			if err := tl.validate(raw); err != nil || json.Unmarshal(raw, &a) != nil {
				b.Fatal(err)
			}
		}
	})
}

// The tool list is made on first use, from any goroutine: two asking at
// once get the same answer, and the race detector has nothing to say.
func TestInfosFromTwoGoroutines(t *testing.T) {
	var tools []Tool
	for i := range 8 {
		tools = append(tools, New(Def[checkArgs]{Name: fmt.Sprintf("t%d", i), Doc: "Checks."}))
	}
	r := NewRegistry(tools...)
	done := make(chan struct{})
	go func() {
		r.Infos(nil)
		close(done)
	}()
	first := r.Infos(nil)
	<-done
	for i, info := range r.Infos(nil) {
		if string(info.InputSchema) != string(first[i].InputSchema) || len(info.InputSchema) == 0 {
			t.Fatalf("%s: schema %s, then %s", info.Name, first[i].InputSchema, info.InputSchema)
		}
	}
}
