package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

var validity = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e-3`, `true`, `false`, `null`, ` { "a" : [ 1 , 2 ] } `,
	`{"a":"\u00e9\n\t\"\\\/"}`, `"` + strings.Repeat("abcdefgh", 40) + `"`, `"tail\u0041"`, `"é ☃ \ud83d\ude00"`,
	`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `"\x"`, `"\u12g4"`, `"a` + "\n" + `b"`, `"abc`, `tru`, `nul`,
	`{"a" 1}`, `{a:1}`, `[1 2]`, `{"a":1}{}`, `[`, `{`, ``, ` `, `"\`, "\"\x7f\"", "\"\xff\"", `[[]]]`, `{"a":{"b":[{"c":null}]}}`,
	`"` + strings.Repeat("x", 15) + `\"` + strings.Repeat("y", 9) + `"`, `"` + strings.Repeat("x", 16) + "\x01" + `"`,
}

// Top agrees with encoding/json.Valid on every input, when no limit bites.
func TestTopAgreesWithValid(t *testing.T) {
	for _, in := range validity {
		_, fault := Top([]byte(in), 0, 0, nil)
		if got, want := fault == OK, json.Valid([]byte(in)); got != want {
			t.Errorf("Top(%q) fault %d; json.Valid says %v", in, fault, want)
		}
	}
}

func FuzzTopAgreesWithValid(f *testing.F) {
	for _, in := range validity {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, fault := Top(in, 0, 0, nil)
		if got, want := fault == OK, json.Valid(in); got != want {
			t.Fatalf("Top(%q) fault %d; json.Valid says %v", in, fault, want)
		}
		if fault != OK || len(in) == 0 || bytes.TrimSpace(in)[0] != '{' {
			return
		}
		// Members finds what encoding/json finds.
		var want map[string]json.RawMessage
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		Members(in, func(k, v []byte) {
			key, ok := Unquote(k)
			if !ok {
				t.Fatalf("key %s does not unquote", k)
			}
			got[key] = string(v)
		})
		for k, v := range want {
			if strings.TrimSpace(string(v)) != got[k] {
				t.Fatalf("member %q: %q, want %q", k, got[k], v)
			}
		}
	})
}

// Unquote decodes every checked string as encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\nb\"c\\d\/"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, "\"\xff\xfe\"", `"\b\f\r\t"`, `"\u0000"`, "\"\xed\xa0\x80\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		in = bytes.TrimSpace(in)
		if _, fault := Top(in, 0, 0, nil); fault != OK || len(in) == 0 || in[0] != '"' {
			return
		}
		var want string
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := Unquote(in); !ok || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; want %q", in, got, ok, want)
		}
	})
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("[", 10_000_000)
	for _, tc := range []struct {
		name             string
		in               string
		maxDepth, maxVal int
		want             Fault
	}{
		{"ten million deep, cut off early", deep, 128, 0, Depth},
		{"at the depth limit", strings.Repeat("[", 3) + strings.Repeat("]", 3), 3, 0, OK},
		{"one past it", strings.Repeat("[", 4) + strings.Repeat("]", 4), 3, 0, Depth},
		{"objects count as depth", `{"a":{"b":{"c":{}}}}`, 3, 0, Depth},
		{"at the value limit", `[1,2,3]`, 0, 4, OK},
		{"one past it", `[1,2,3,4]`, 0, 4, Values},
		{"tiny objects", "[" + strings.Repeat("{},", 1000) + "{}]", 0, 1000, Values},
		{"a huge string is one value", `["` + strings.Repeat("x", 1<<20) + `"]`, 0, 2, OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, f := Top([]byte(tc.in), tc.maxDepth, tc.maxVal, nil); f != tc.want {
				t.Errorf("fault %d, want %d", f, tc.want)
			}
		})
	}
}

// A fault after the id still lets the caller see the members before it.
func TestMembersBeforeAFault(t *testing.T) {
	var keys []string
	_, f := Top([]byte(`{"id":7,"params":[[[[]]]]}`), 3, 0, func(k, v []byte) { keys = append(keys, string(k)+"="+string(v)) })
	if f != Depth || len(keys) != 1 || keys[0] != `"id"=7` {
		t.Fatalf("fault %d, members %q", f, keys)
	}
}

func TestUnquote(t *testing.T) {
	for in, want := range map[string]string{`"abc"`: "abc", `"a\nb"`: "a\nb", `"\u00e9"`: "é", "\"\xff\"": "\ufffd", `""`: "", `"\ud83d\ude00"`: "😀", `"\ud83d"`: "\ufffd"} {
		if got, ok := Unquote([]byte(in)); !ok || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// Not one valid JSON string: Unquote is the check of what a scan only
	// looked through (StringEnd).
	for _, in := range []string{``, `"`, `abc`, `"\x"`, `"\u12"`, "\"a\x01b\"", "\"a\nb\"", `"a"b"`, `"ab\"`, "\"abcdefghijkl\x1f\""} {
		if _, ok := Unquote([]byte(in)); ok {
			t.Errorf("Unquote(%s) accepted", in)
		}
	}
}

func BenchmarkTop1MiBString(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a","content":"` +
		strings.Repeat(`some text of a line, \"quoted\"\n`, (1<<20)/34) + `"}}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, f := Top(body, 128, 1<<18, nil); f != OK {
			b.Fatal(f)
		}
	}
}

// TestPlainRunStopsAtTheFirstByteToLookAt: plainRun stops exactly where a
// byte-by-byte scan does, except in the last seven bytes, which it leaves
// to the reader's loop; it never passes a byte the reader must see.
func TestPlainRunStopsAtTheFirstByteToLookAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []byte{'"', '\\', '\n', 0, 0x1f, 0x80, 0xc3, 0xff}
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for k := range b {
			b[k] = byte(0x20 + rng.IntN(0x5f)) // plain ASCII, '"' and '\\' included
			if rng.IntN(12) == 0 {
				b[k] = special[rng.IntN(len(special))]
			}
		}
		for i := 0; i <= len(b); i++ {
			got, want := plainRun(b, i), plainRunBytewise(b, i)
			if got > want || got < i || (got != want && len(b)-got >= 8) {
				t.Fatalf("plainRun(%q, %d) = %d, a byte-by-byte scan stops at %d", b, i, got, want)
			}
		}
	}
}

// SkipString lands just past the closing quote, past escaped quotes and
// runs of backslashes, and fails on a string that never closes.
func TestSkipString(t *testing.T) {
	for in, end := range map[string]int{`"" x`: 2, `"a\"b" x`: 6, `"a\\" x`: 5, `"a\\\"b" x`: 8, `"\u0022" x`: 8} {
		s := Scanner{B: []byte(in)}
		if !s.SkipString() || s.I != end {
			t.Errorf("SkipString(%s) = %v at %d, want true at %d", in, s.Fault, s.I, end)
		}
	}
	for _, in := range []string{`"`, `"abc`, `"abc\"`, `"\\\"`} {
		s := Scanner{B: []byte(in)}
		if s.SkipString() || s.Fault != Syntax {
			t.Errorf("SkipString(%s) accepted an unclosed string (I %d)", in, s.I)
		}
	}
}
