package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	lsp "go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/protocol"
)

// A message under the size cap can still be built to break a decoder: ten
// million arrays deep (a recursive decoder overflows its stack, which no
// recover catches), or 64 MiB of empty objects (decoded, gigabytes). Each
// gets an error reply naming its request, and the next call is served.
func TestDeepAndDenseMessagesAreRefusedAndSurvived(t *testing.T) {
	const depth = 10_000_000
	deep := `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"count","arguments":{"tag":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`
	dense := denseMessage("dense", daemon.MaxMessageBytes)
	for _, tc := range []struct {
		name, id, body, want string
	}{
		{"ten million deep", "deep", deep, "levels deep"},
		{"64 MiB of empty objects", "dense", dense, "JSON values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t)
			f.initialize()
			rpcErr := f.sendBad(frame(tc.body), `"`+tc.id+`"`)
			if rpcErr.Code != jsonrpc2.InvalidRequest || !strings.Contains(rpcErr.Message, tc.want) {
				t.Errorf("error %d %q, want InvalidRequest containing %q", rpcErr.Code, rpcErr.Message, tc.want)
			}
			if res := f.tool("count", map[string]any{"tag": "after"}); res.IsError {
				t.Fatalf("the call after: %s", res.Content)
			}
		})
	}
}

// denseMessage is a tools/call of exactly size bytes, most of them empty
// objects in one argument.
func denseMessage(id string, size int) string {
	head := `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"count","arguments":{"tag":"x","junk":[{}`
	tail := `]}}}`
	var b strings.Builder
	b.Grow(size)
	b.WriteString(head)
	for b.Len()+len(",{}")+len(tail) <= size {
		b.WriteString(",{}")
	}
	b.WriteString(strings.Repeat(" ", size-b.Len()-len(tail)))
	b.WriteString(tail)
	return b.String()
}

// With every slot taken, calls wait their turn, yet $/cancelRequest and
// shutdown are read and answered at once: they never queue behind calls.
func TestSaturatedDaemonStillAnswersCancelAndShutdown(t *testing.T) {
	f := start(t)
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{MaxCallsInFlight: 2}), &res)
	ctx := waitCtx(t)
	calls := map[string]interface {
		Wait(context.Context) (json.RawMessage, error)
		Cancel(context.Context) error
	}{}
	for _, tag := range []string{"b1", "b2", "b3", "b4"} {
		p, err := f.client.Go(ctx, tag, protocol.MethodToolsCall, map[string]any{"name": "block", "arguments": map[string]any{"tag": tag}})
		if err != nil {
			t.Fatal(err)
		}
		calls[tag] = p
	}
	running := map[string]bool{<-f.tools.started: true, <-f.tools.started: true}
	if !running["b1"] || !running["b2"] {
		t.Fatalf("running %v, want the first two calls", running)
	}

	// A parked call cancelled is answered at once, without running.
	if err := calls["b3"].Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := calls["b3"].Wait(ctx)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != lsp.CodeRequestCancelled || !strings.Contains(rpcErr.Message, "before it started") {
		t.Fatalf("cancelled parked call: %v", err)
	}

	// Shutdown is answered while both slots are still busy.
	if _, err := f.client.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown while saturated: %v", err)
	}
	if n := f.tools.blocking.Load(); n != 2 {
		t.Fatalf("%d calls blocking after shutdown, want the 2 that were", n)
	}

	// A running call cancelled ends, and its slot goes to the parked one.
	if err := calls["b1"].Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if raw, err := calls["b1"].Wait(ctx); err != nil || !strings.Contains(string(raw), "was cancelled") {
		t.Fatalf("b1: %s, %v", raw, err)
	}
	if tag := <-f.tools.started; tag != "b4" {
		t.Fatalf("started %s after b1 ended, want b4", tag)
	}
	for _, tag := range []string{"b2", "b4"} {
		if err := calls[tag].Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := calls[tag].Wait(ctx); err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
	}
	if most := f.tools.mostBlocking.Load(); most != 2 {
		t.Fatalf("%d calls ran at once, want maxCallsInFlight, 2", most)
	}
}

// When every running call waits for the user, the reader must not wait
// for them: the answers are behind it in the input. With one slot and
// more questions than can be parked, every call is answered: run once the
// user answers, or refused as busy when there was no room to park it.
func TestCallsWaitingForTheClientDoNotStallTheReader(t *testing.T) {
	f := start(t)
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{AskUser: true}, &protocol.Settings{MaxCallsInFlight: 1}), &res)
	ctx := waitCtx(t)
	const n = 12 // over one slot and the four calls it may park
	var wg sync.WaitGroup
	var answered, busy atomic.Int32
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r protocol.ToolCallResult
			_, err := f.client.Call(ctx, protocol.MethodToolsCall, map[string]any{"name": "ask_test", "arguments": map[string]any{"tag": strconv.Itoa(i)}}, &r)
			var rpcErr *jsonrpc2.Error
			switch {
			case err == nil && r.Content == "answer: b":
				answered.Add(1)
			case errors.As(err, &rpcErr) && rpcErr.Code == -32803 && strings.Contains(rpcErr.Message, "busy"):
				busy.Add(1)
			default:
				errs <- fmt.Errorf("call %d: %q, %v", i, r.Content, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d answered, %d refused as busy", answered.Load(), busy.Load())
	if answered.Load() == 0 || answered.Load()+busy.Load() != n {
		t.Fatalf("%d answered and %d refused as busy, of %d", answered.Load(), busy.Load(), n)
	}
}

// memoryCeiling is the most resident memory the daemon may reach in
// TestClientThatStopsReadingKeepsMemoryBounded. Unbounded, the same run
// queues every reply: over 500 MB.
const memoryCeiling = 160 << 20

// A client that stops reading while it fires 2,000 calls with large
// results: the daemon stops reading too, once its bounded queues are full,
// and its memory stays under a fixed ceiling, while saturated and while
// draining; then it answers shutdown.
func TestClientThatStopsReadingKeepsMemoryBounded(t *testing.T) {
	bin := binary(t)
	if _, err := rpctest.ProcKiB(os.Getpid(), "VmHWM"); err != nil {
		t.Skipf("no /proc to read memory from: %v", err)
	}
	ws, home := t.TempDir(), t.TempDir()
	const calls, fileSize = 2000, 256 << 10
	line := strings.Repeat("x", 99) + "\n"
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat(line, fileSize/len(line))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "TETHER_LOG_LEVEL=warn")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
			t.Errorf("the daemon was still running; stderr:\n%s", stderr.String())
		}
		inW.Close()
		outR.Close()
	})
	write := func(id, method string, params any) {
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			panic(err)
		}
		if _, err := fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			panic(err)
		}
	}
	out := bufio.NewReaderSize(outR, 1<<20)
	// readUntil reads replies until those to every call named have come,
	// in any order (shutdown's goes ahead of replies waiting to go out).
	readUntil := func(ids ...string) {
		t.Helper()
		want := map[string]bool{}
		for _, id := range ids {
			want[`"`+id+`"`] = true
		}
		for len(want) > 0 {
			got, size, err := readReplyID(out)
			if err != nil {
				t.Fatalf("reading replies: %v; stderr:\n%s", err, stderr.String())
			}
			if strings.HasPrefix(got, `"c`) && size < fileSize {
				t.Fatalf("reply %s holds %d bytes, want the whole file", got, size)
			}
			if !want[got] {
				t.Fatalf("unexpected reply %s", got)
			}
			delete(want, got)
		}
	}

	write("init", protocol.MethodInitialize, protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "test"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(ws), Name: "ws"}},
	})
	readUntil("init")

	// The client stops reading and sends every call. Its writes block
	// once the daemon stops reading.
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range calls {
			write("c"+strconv.Itoa(i), protocol.MethodToolsCall, map[string]any{
				// Each call its own limit (past the file's end): no two
				// are identical, so the repeat guard never answers instead.
				"name": "read_file", "arguments": map[string]any{"path": [2]string{"a.txt", "b.txt"}[i%2], "limit": 1_000_000 + i},
				"requestId": "r", "tokenBudget": fileSize,
			})
			sent.Add(1)
		}
		write("sd", protocol.MethodShutdown, nil)
	}()
	// Wait until the writes stop going through: the daemon is saturated.
	// (Not a timed assertion: a slower machine only waits longer.)
	for last := int64(-1); ; {
		select {
		case <-done:
			t.Fatalf("the daemon read all %d calls while nobody read its replies", calls)
		case <-time.After(500 * time.Millisecond):
		}
		if n := sent.Load(); n == last {
			break
		} else {
			last = n
		}
	}
	saturated, err := rpctest.ProcKiB(cmd.Process.Pid, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}

	// Now read: every reply comes, and shutdown's.
	ids := []string{"sd"}
	for i := range calls {
		ids = append(ids, "c"+strconv.Itoa(i))
	}
	readUntil(ids...)
	<-done
	peak, err := rpctest.ProcKiB(cmd.Process.Pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("daemon RSS saturated %d KiB, peak %d KiB (ceiling %d KiB)", saturated, peak, memoryCeiling>>10)
	if peak > memoryCeiling>>10 {
		t.Errorf("the daemon's memory peaked at %d KiB, over the ceiling of %d KiB", peak, memoryCeiling>>10)
	}
	body := `{"jsonrpc":"2.0","method":"exit"}`
	fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body)
	if err := <-exited; err != nil {
		t.Fatalf("daemon exit: %v; stderr:\n%s", err, stderr.String())
	}
	exited <- nil
}

// readReplyID reads one frame and returns its top-level id as JSON and
// the frame's size, decoding no more of the body than it must.
func readReplyID(r *bufio.Reader) (string, int, error) {
	hdr, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil {
		return "", 0, err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return "", 0, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", 0, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", 0, err
		}
		if key == "id" {
			return string(v), n, nil
		}
	}
	return "", n, errors.New("a reply without an id")
}
