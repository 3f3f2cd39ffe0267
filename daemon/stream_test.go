package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/textproto"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestScanIDFindsTheIDInAPrefix(t *testing.T) {
	for _, tc := range []struct {
		head, want string
	}{
		{`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"x":"yyyy`, `"a-1"`},
		{`{"id":42,"params":[1,2,`, `42`},
		{`{"method":"m","params":{"big":"xxxx`, ``}, // id after the cut
		{`{"id":null}`, ``},
		{`{"id":{"no":1}}`, ``},
		{`[1,2]`, ``},
		{`not json`, ``},
	} {
		if got := string(scanID([]byte(tc.head))); got != tc.want {
			t.Errorf("scanID(%.40q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

func TestRequestIDRules(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		echo string
		ok   bool
	}{
		{`"abc"`, `"abc"`, true},
		{`7`, `7`, true},
		{`-3`, `-3`, true},
		{`""`, `""`, false},
		{`2147483648`, `2147483648`, false},
		{`1.5`, `1.5`, false},
		{`null`, ``, false},
		{`true`, ``, false},
		{``, ``, false},
	} {
		echo, ok := requestID([]byte(tc.raw))
		if string(echo) != tc.echo || ok != tc.ok {
			t.Errorf("requestID(%s) = %s, %v; want %s, %v", tc.raw, echo, ok, tc.echo, tc.ok)
		}
	}
}

// An oversized body is skipped without being held in memory.
func TestOversizedBodyIsNotAllocated(t *testing.T) {
	const size = 32 << 20
	in := io.MultiReader(
		strings.NewReader("Content-Length: "+strconv.Itoa(size)+"\r\n\r\n"),
		io.LimitReader(zeros{}, size),
		strings.NewReader(frameOf(`{"jsonrpc":"2.0","method":"ping"}`)),
	)
	var out bytes.Buffer
	s := newStream(in, newOutbox(&out, MaxQueuedOutput), 1<<20, slog.New(slog.DiscardHandler))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, err := s.Read()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if msg.method != "ping" || msg.rawID != nil {
		t.Fatalf("message after the oversized one: %#v", msg)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("reading past a %d-byte body allocated %d bytes", size, grew)
	}
	if !strings.Contains(out.String(), "over Tether's limit") {
		t.Fatalf("no error reply: %q", out.String())
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func frameOf(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// FuzzStreamRead feeds arbitrary input to the reader: it must never panic
// or stop before the end of input, and everything it writes back must be
// well-framed JSON-RPC error responses.
func FuzzStreamRead(f *testing.F) {
	for _, seed := range []string{
		frameOf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		frameOf(`{"jsonrpc":"2.0","id":1,`),
		"garbage\r\n" + frameOf(`{"jsonrpc":"2.0","method":"exit"}`),
		"Content-Length: 99999999\r\n\r\n{}",
		"Content-Length: x\r\n\r\n{}Content-Length: 2\r\n\r\n{}",
		frameOf(`[1]`) + frameOf(`{"id":null,"error":{}}`),
		"\r\n\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		s := newStream(bytes.NewReader(input), newOutbox(&out, MaxQueuedOutput), 1<<10, slog.New(slog.DiscardHandler))
		for {
			_, err := s.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
		}
		r := bufio.NewReader(&out)
		for {
			hdr, err := textproto.NewReader(r).ReadMIMEHeader()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("reply header: %v", err)
			}
			n, err := strconv.Atoi(hdr.Get("Content-Length"))
			if err != nil {
				t.Fatalf("reply Content-Length: %v", err)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			var reply struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc2.Error `json:"error"`
			}
			if err := json.Unmarshal(body, &reply); err != nil || reply.JSONRPC != "2.0" || reply.Error == nil || reply.ID == nil {
				t.Fatalf("reply %s is not a JSON-RPC error response (%v)", body, err)
			}
		}
	})
}
