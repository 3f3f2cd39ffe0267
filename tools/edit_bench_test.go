package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/edit/edittest"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// benchEnv is a workspace with one big file, read (in part) by the session,
// and edits accepted without asking, as in acceptEdits mode.
type benchEnv struct {
	b    *testing.B
	reg  *tool.Registry
	env  *tool.Env
	sess *tool.Session
}

func newBenchEnv(b *testing.B, content string) *benchEnv {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{b: b, reg: Builtin(), sess: tool.NewSession(), env: &tool.Env{Workspace: ws, Settings: tool.Settings{Mode: protocol.ModeAcceptEdits}}}
	e.call(false, "read_file", map[string]any{"path": "big.go", "offset": 1, "limit": 50})
	return e
}

// call runs a tool; wantErr says whether it is meant to fail.
func (e *benchEnv) call(wantErr bool, name string, args map[string]any) tool.Result {
	return e.run(wantErr, false, name, args)
}

// run is call, optionally as a preview (tools/prepare).
func (e *benchEnv) run(wantErr, prepare bool, name string, args map[string]any) tool.Result {
	raw, _ := json.Marshal(args)
	r := e.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: raw, RequestID: "bench", Budget: tool.NewBudget(0, 0), Session: e.sess, Env: e.env, Prepare: prepare})
	if r.IsError != wantErr {
		e.b.Fatalf("%s: error=%v: %.500s", name, r.IsError, r.Content)
	}
	return r
}

// BenchmarkEditFile10MB is one unique edit_file replacement in a 10 MB file,
// through the registry: guardrails, match, diff, compare-and-swap re-read,
// atomic write with fsync, re-record. The prepare variants stop before the
// write (tools/prepare), which separates the work from the disk's fsync
// latency, which on a busy machine is most of the total.
func BenchmarkEditFile10MB(b *testing.B) {
	edits := []map[string]any{editArgs("big.go", "uniqueNeedle()", "uniqueNeedle2()"), editArgs("big.go", "uniqueNeedle2()", "uniqueNeedle()")}
	for _, tc := range []struct {
		name, eol string
		prepare   bool
	}{{"LF", "\n", false}, {"CRLF", "\r\n", false}, {"LF-prepare", "\n", true}, {"CRLF-prepare", "\r\n", true}} {
		b.Run(tc.name, func(b *testing.B) {
			content := edittest.BigSource(10<<20, tc.eol)
			e := newBenchEnv(b, content)
			b.SetBytes(int64(len(content)))
			b.ResetTimer()
			for i := range b.N {
				if tc.prepare {
					e.run(false, true, "edit_file", edits[0]) // nothing is written, so always the same edit
				} else {
					e.call(false, "edit_file", edits[i%2])
				}
			}
		})
	}
}

// BenchmarkEditFileNotFound10MB is the miss path on the same file: the
// search for the closest region and the explanation.
func BenchmarkEditFileNotFound10MB(b *testing.B) {
	content := edittest.BigSource(10<<20, "\n")
	for _, tc := range []struct {
		name string
		olds []string // alternated, so the repeat guard never trips
		want string
	}{
		{"indentation", []string{
			"    value0100000 := compute(700000, \"some text\") // comment\n    value0100001 := compute(700007, \"some text\") // comment\n",
			"    value0100002 := compute(700014, \"some text\") // comment\n    value0100003 := compute(700021, \"some text\") // comment\n",
		}, "Tabs versus spaces"},
		{"typo", []string{
			"\tvalue0150000 := comptue(1050000, \"some text\") // comment",
			"\tvalue0150001 := compute(1050007, \"sme text\") // comment",
		}, "The text differs"},
		{"nothing alike", []string{"zebra quagga okapi", "okapi zebra quagga"}, "no part of the file resembles it"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := newBenchEnv(b, content)
			b.SetBytes(int64(len(content)))
			b.ResetTimer()
			for i := range b.N {
				r := e.call(true, "edit_file", editArgs("big.go", tc.olds[i%2], "x"))
				if !strings.Contains(r.Content, tc.want) {
					b.Fatalf("got %.600s", r.Content)
				}
			}
		})
	}
}
