package daemon_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

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
