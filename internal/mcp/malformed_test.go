package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/mcp"
)

// A line the server cannot use is answered with an error where it has an
// id, and skipped where it has none; the session goes on either way.
func TestMalformedLinesDoNotEndTheSession(t *testing.T) {
	f := newFixture(t)
	f.write(t, "a.txt", "still here\n")
	cmd := exec.Command(tetherBin, "mcp", "--workspace", f.ws)
	cmd.Env = f.env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	tooLong := `{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":"` +
		strings.Repeat("x", mcp.MaxLineBytes) + `"}}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not JSON at all`,
		`{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":`,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"read a.txt"}`,
		`{"jsonrpc":"2.0","id":{"no":"objects"},"method":"ping"}`,
		`42`,
		``,
		tooLong,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`,
	}
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(stdin, l+"\n"); err != nil {
				return
			}
		}
	}()

	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	got := map[string]reply{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	deadline := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", sc.Text())
		}
		got[string(r.ID)] = r
		if string(r.ID) == "7" {
			break
		}
	}
	if _, ok := got["7"]; !ok {
		t.Fatalf("the session ended before the last call was answered (replies %v)\nserver log:\n%s", got, stderr.String())
	}
	for id, code := range map[string]int{
		`"cut"`:  -32700, // not JSON, but its id could be read
		`3`:      -32600, // not JSON-RPC 2.0
		`4`:      -32600, // neither request nor response
		`5`:      -32600, // a batch
		`6`:      -32600, // params not an object
		`"long"`: -32600, // too long to read
	} {
		r, ok := got[id]
		if !ok || r.Error == nil || r.Error.Code != code {
			t.Errorf("reply to id %s: %+v, want error %d", id, r, code)
		}
	}
	if !strings.Contains(got[`"long"`].Error.Message, "longer than") {
		t.Errorf("the too-long reply says %q", got[`"long"`].Error.Message)
	}
	if len(got) != 8 { // 1, the six errors, 7
		t.Errorf("got %d replies, want 8: lines without a usable id are not answered: %v", len(got), got)
	}
	last := got["7"]
	if last.Error != nil || !strings.Contains(string(last.Result), "still here") {
		t.Errorf("the call after the bad lines: %s %+v", last.Result, last.Error)
	}
	for _, w := range []string{"not valid JSON", "no usable id"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("the log does not mention %q:\n%s", w, stderr.String())
		}
	}
	stdin.Close()
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("tether mcp exited with %v after stdin closed\n%s", waitErr, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Error("tether mcp did not exit after stdin closed")
	}
}
