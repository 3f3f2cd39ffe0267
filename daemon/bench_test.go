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

// BenchmarkReadFileRoundTrip times one 4 KB read_file call through Serve
// in-process (pipes, no process boundary): the daemon's own share of a
// round trip. bench/daemon measures the real binary over stdio.
func BenchmarkReadFileRoundTrip(b *testing.B) {
	f := start(b)
	f.initialize()
	line := strings.Repeat("x", 63) + "\n"
	f.write("a.txt", strings.Repeat(line, 64))
	f.write("b.txt", strings.Repeat(line, 64))
	ctx := waitCtx(b)
	files := [2]string{"a.txt", "b.txt"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Alternate files: three identical calls in a row are refused.
		params := map[string]any{"name": "read_file", "arguments": map[string]any{"path": files[i%2]}, "requestId": "r"}
		i++
		call, err := f.client.Go(ctx, strconv.Itoa(i), protocol.MethodToolsCall, params)
		if err != nil {
			b.Fatal(err)
		}
		if raw, err := call.Wait(ctx); err != nil || !bytes.Contains(raw, []byte(`"isError":false`)) {
			b.Fatal(err, string(raw))
		}
	}
}

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
	frame := func(id int, method string, params any) []byte {
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			b.Fatal(err)
		}
		return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- daemon.Serve(ctx, inR, outW, daemon.Options{Version: "bench"}) }()
	defer func() {
		cancel()
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-served
		outW.Close()
	}()
	replies := bufio.NewReaderSize(outR, 1<<20)
	roundTrip := func(msg []byte) []byte {
		if _, err := inW.Write(msg); err != nil {
			b.Fatal(err)
		}
		for {
			var n int
			for {
				line, err := replies.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				if line == "\r\n" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(replies, body); err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(body, []byte(`"id"`)) {
				return body
			}
		}
	}
	settings := &protocol.Settings{PermissionMode: protocol.ModeBypass, TokenBudget: 1 << 20}
	roundTrip(frame(1, protocol.MethodInitialize, protocol.InitializeParams{ClientInfo: protocol.ClientInfo{Name: "bench"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(dir), Name: "ws"}}, Settings: settings}))
	if reply := roundTrip(frame(2, protocol.MethodToolsCall, map[string]any{"name": "read_file", "arguments": map[string]any{"path": "big.go"}, "requestId": "w"})); !bytes.Contains(reply, []byte(`"isError":false`)) {
		b.Fatal(string(reply[:min(len(reply), 300)]))
	}
	var calls [2][]byte
	for k := range calls {
		calls[k] = frame(3+k, protocol.MethodToolsCall, map[string]any{"name": "write_file", "arguments": map[string]any{"path": "big.go", "content": payloads[k]}, "requestId": "w"})
	}
	b.SetBytes(1 << 20)
	i := 0
	for b.Loop() {
		i++
		if reply := roundTrip(calls[i%2]); !bytes.Contains(reply, []byte(`"isError":false`)) {
			b.Fatal(string(reply[:min(len(reply), 300)]))
		}
	}
}
