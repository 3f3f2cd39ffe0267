package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// The messages a benchmark reads: a small tools/call (a read_file), and a
// write_file of 1 MiB of code, whose content is one long string with an
// escaped newline every line.
var (
	smallCall = []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"internal/jsonscan/jsonscan.go"},"requestId":"3f2a9c1e-77d0-4b8e-9a51-0c6f1e2d3b4a"}}`)
	codeLine  = `func f(x int) int { return x * 2 } // a line of ordinary code\n`
	bigString = `"` + strings.Repeat(codeLine, (1<<20)/len(codeLine)) + `"`
	bigCall   = []byte(`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"out/f.go","content":` + bigString + `},"requestId":"w"}}`)
)

// BenchmarkTop checks a message and finds its members, as the daemon does
// with every message, beside encoding/json.Valid on the same bytes, which
// checks it and nothing more.
func BenchmarkTop(b *testing.B) {
	for _, m := range []struct {
		name string
		msg  []byte
	}{{"small", smallCall}, {"1MiB", bigCall}} {
		b.Run(m.name+"/Top", func(b *testing.B) {
			b.SetBytes(int64(len(m.msg)))
			for b.Loop() {
				if _, f := Top(m.msg, 128, 1<<18, func(_, _ []byte) {}); f != OK {
					b.Fatal(f)
				}
			}
		})
		b.Run(m.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(m.msg)))
			for b.Loop() {
				if !json.Valid(m.msg) {
					b.Fatal("not valid")
				}
			}
		})
	}
}

// BenchmarkPlainRun moves over a file's content, one long string with an
// escaped newline a line, eight bytes at a time (plainRun) and one at a
// time (bytewise): what the eight bytes at a time save in reading every
// message, and in unquoting a string.
func BenchmarkPlainRun(b *testing.B) {
	content := []byte(bigString[1 : len(bigString)-1])
	for _, run := range []struct {
		name string
		f    func([]byte, int) int
	}{{"plainRun", plainRun}, {"bytewise", plainRunBytewise}} {
		b.Run(run.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				stops := 0
				for i := 0; i < len(content); i++ {
					i = run.f(content, i)
					stops++
				}
				if stops < len(content)/len(codeLine) {
					b.Fatalf("%d stops", stops)
				}
			}
		})
	}
}

// plainRunBytewise is plainRun one byte at a time.
func plainRunBytewise(b []byte, i int) int {
	for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' && b[i] < 0x80 {
		i++
	}
	return i
}

// BenchmarkUnquote decodes strings as the daemon and the tools do: a
// method name, a path, and a 1 MiB file's content; beside encoding/json's
// own decoding of a string.
func BenchmarkUnquote(b *testing.B) {
	for _, s := range []struct{ name, raw string }{
		{"method", `"tools/call"`},
		{"path", `"internal/jsonscan/jsonscan.go"`},
		{"1MiB", bigString},
	} {
		raw := []byte(s.raw)
		b.Run(s.name+"/Unquote", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, ok := Unquote(raw); !ok {
					b.Fatal("did not unquote")
				}
			}
		})
		b.Run(s.name+"/json.Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				var out string
				if err := json.Unmarshal(raw, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
