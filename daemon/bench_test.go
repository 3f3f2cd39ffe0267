package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
)

// BenchmarkBareRoundTrip times a tools/call of a tool that does nothing:
// the protocol's own cost in-process (framing, dispatch, one goroutine).
func BenchmarkBareRoundTrip(b *testing.B) {
	f := start(b)
	f.initialize()
	ctx := waitCtx(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		call, err := f.client.Go(ctx, strconv.Itoa(i), protocol.MethodToolsCall, map[string]any{"name": "count", "arguments": map[string]any{"tag": strconv.Itoa(i)}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := call.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteFile1MiB times a write_file call of 1 MiB that creates a
// new file, in a request of its own, through Serve in-process: decoding,
// the undo checkpoint, the synced write, and the reply.
func BenchmarkWriteFile1MiB(b *testing.B) {
	f := start(b)
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{PermissionMode: protocol.ModeBypass, TokenBudget: 1 << 20}), &res)
	line := "func f(x int) int { return x * 2 } // a line of ordinary code\n"
	content := strings.Repeat(line, (1<<20)/len(line))
	ctx := waitCtx(b)
	b.SetBytes(int64(len(content)))
	i := 0
	for b.Loop() {
		i++
		params := map[string]any{"name": "write_file", "arguments": map[string]any{"path": "out/f" + strconv.Itoa(i) + ".go", "content": content}, "requestId": "w" + strconv.Itoa(i)}
		call, err := f.client.Go(ctx, strconv.Itoa(i), protocol.MethodToolsCall, params)
		if err != nil {
			b.Fatal(err)
		}
		if raw, err := call.Wait(ctx); err != nil || !bytes.Contains(raw, []byte(`"isError":false`)) {
			b.Fatal(err, string(raw[:min(len(raw), 300)]))
		}
	}
}

// BenchmarkOverwrite1MiB times write_file overwriting an existing 1 MiB
// file through Serve in-process, two payloads that differ in one line
// alternated, every call in one request (its checkpoint is made by the
// first). The client writes frames encoded beforehand and reads the
// replies' bytes only, so the profile is the daemon's: the frame read,
// the envelope and arguments decoded, the file loaded and compared, the
// durable write, what was written recorded for undo, the reply.
// bench/peers times the same over stdio beside the MCP server.
func BenchmarkOverwrite1MiB(b *testing.B) {
	dir := b.TempDir()
	payloads := tooltest.OverwritePayloads()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(payloads[1]), 0o644); err != nil {
		b.Fatal(err)
	}
	d := serveRaw(b, dir)
	if reply := d.roundTrip(d.frame(protocol.MethodToolsCall, map[string]any{"name": "read_file", "arguments": map[string]any{"path": "big.go"}, "requestId": "w"})); !bytes.Contains(reply, []byte(`"isError":false`)) {
		b.Fatal(string(reply[:min(len(reply), 300)]))
	}
	var calls [2][]byte
	for k := range calls {
		calls[k] = d.frame(protocol.MethodToolsCall, map[string]any{"name": "write_file", "arguments": map[string]any{"path": "big.go", "content": payloads[k]}, "requestId": "w"})
	}
	b.SetBytes(1 << 20)
	i := 0
	for b.Loop() {
		i++
		if reply := d.roundTrip(calls[i%2]); !bytes.Contains(reply, []byte(`"isError":false`)) {
			b.Fatal(string(reply[:min(len(reply), 300)]))
		}
	}
}

// BenchmarkReadFile4KiB times a 4 KiB read_file call through Serve
// in-process (pipes, no process boundary) as BenchmarkOverwrite1MiB times
// its write: frames encoded beforehand and the replies' bytes only read,
// so the time and the profile are the daemon's own share of a round trip
// (a client decoding with encoding/json took more than half of it).
// bench/peers times the call over stdio. Two files alternate: three
// identical calls in a row are refused.
func BenchmarkReadFile4KiB(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("x", 63) + "\n"
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat(line, 64)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	d := serveRaw(b, dir)
	var calls [2][]byte
	for k, name := range []string{"a.txt", "b.txt"} {
		calls[k] = d.frame(protocol.MethodToolsCall, map[string]any{"name": "read_file", "arguments": map[string]any{"path": name}, "requestId": "r"})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if reply := d.roundTrip(calls[i%2]); !bytes.Contains(reply, []byte(`"isError":false`)) {
			b.Fatal(string(reply[:min(len(reply), 300)]))
		}
	}
}

// rawDaemon is Serve in-process behind pipes, spoken to in raw frames.
type rawDaemon struct {
	b       *testing.B
	in      io.Writer
	replies *bufio.Reader
	id      int
}

// serveRaw starts Serve on dir, initialized in bypass mode with a large
// budget, and stops it when the benchmark ends.
func serveRaw(b *testing.B, dir string) *rawDaemon {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- daemon.Serve(ctx, inR, outW, daemon.Options{Version: "bench"}) }()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-served
		outW.Close()
	})
	d := &rawDaemon{b: b, in: inW, replies: bufio.NewReaderSize(outR, 1<<20)}
	settings := &protocol.Settings{PermissionMode: protocol.ModeBypass, TokenBudget: 1 << 20}
	d.roundTrip(d.frame(protocol.MethodInitialize, protocol.InitializeParams{ClientInfo: protocol.ClientInfo{Name: "bench"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(dir), Name: "ws"}}, Settings: settings}))
	return d
}

// frame encodes a request with the next id.
func (d *rawDaemon) frame(method string, params any) []byte {
	d.id++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": d.id, "method": method, "params": params})
	if err != nil {
		d.b.Fatal(err)
	}
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// roundTrip sends msg and returns the body of the next reply (frames
// without an id, notifications, are skipped).
func (d *rawDaemon) roundTrip(msg []byte) []byte {
	if _, err := d.in.Write(msg); err != nil {
		d.b.Fatal(err)
	}
	for {
		var n int
		for {
			line, err := d.replies.ReadString('\n')
			if err != nil {
				d.b.Fatal(err)
			}
			if line == "\r\n" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(d.replies, body); err != nil {
			d.b.Fatal(err)
		}
		if bytes.Contains(body, []byte(`"id"`)) {
			return body
		}
	}
}
