package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/protocol"
)

var stringSeeds = []string{
	"", "plain ascii text that runs past eight bytes", "tab\there", "line\nbreak\r\n", `quote " and \ backslash`,
	"\x00\x01\x1f\x7f", "é ☃ 😀", "\xff\xfe invalid", "a\u2028b\u2029c", "<html> & </html>", strings.Repeat("x", 17) + "\"",
	"\xe2\x80", "12345678\n12345678", "\b\f",
}

// Strings go out as encoding/json writes them with HTML escaping off:
// they read back as encoding/json reads its own output (invalid UTF-8 as
// U+FFFD), and <, > and & are not escaped.
func TestReplyStringsMatchEncodingJSON(t *testing.T) {
	for _, s := range stringSeeds {
		checkString(t, s)
	}
}

func FuzzReplyStrings(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(checkString)
}

func checkString(t *testing.T, s string) {
	f, err := replyFrame([]byte("1"), protocol.ToolCallResult{Content: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := body(t, f)
	var got struct {
		Result protocol.ToolCallResult `json:"result"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%q: %s: %v", s, b, err)
	}
	var want string
	marshaled, _ := json.Marshal(s)
	if err := json.Unmarshal(marshaled, &want); err != nil {
		t.Fatal(err)
	}
	if got.Result.Content != want {
		t.Fatalf("%q reads back as %q, want %q", s, got.Result.Content, want)
	}
	if strings.ContainsAny(s, "<>&") && !bytes.ContainsAny(b, "<>&") {
		t.Fatalf("%q: HTML characters escaped: %s", s, b)
	}
}

// A tool result written by hand reads back as the same value.
func TestToolCallResultFrame(t *testing.T) {
	for _, r := range []protocol.ToolCallResult{
		{Content: "1\tpackage main\n", IsError: false},
		{Content: "no such file", IsError: true},
		{Content: "done", Diff: "--- a\n+++ b\n", Checkpoint: "cp-1"},
	} {
		f, err := replyFrame([]byte(`"r-1"`), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			JSONRPC string                  `json:"jsonrpc"`
			ID      string                  `json:"id"`
			Result  protocol.ToolCallResult `json:"result"`
		}
		if err := json.Unmarshal(body(t, f), &got); err != nil || got.JSONRPC != "2.0" || got.ID != "r-1" || got.Result != r {
			t.Fatalf("%s: %+v, %v", body(t, f), got, err)
		}
		want, _ := json.Marshal(r)
		if !bytes.Contains(body(t, f), want) {
			t.Fatalf("%s does not hold encoding/json's %s", body(t, f), want)
		}
	}
}

func TestErrorFrame(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code jsonrpc2.Code
	}{
		{jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad \"x\""), jsonrpc2.InvalidParams},
		{errors.New("plain"), jsonrpc2.InternalError},
	} {
		f, err := replyFrame(nil, nil, tc.err)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID    json.RawMessage `json:"id"`
			Error jsonrpc2.Error  `json:"error"`
		}
		if err := json.Unmarshal(body(t, f), &got); err != nil || string(got.ID) != "null" || got.Error.Code != tc.code {
			t.Fatalf("%s: %+v, %v", body(t, f), got, err)
		}
	}
}

// body checks a frame's header and returns its body.
func body(t *testing.T, f *frame) []byte {
	t.Helper()
	hdr, b, ok := bytes.Cut(f.bytes(), []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(hdr, []byte("Content-Length: ")) {
		t.Fatalf("frame %q", f.bytes())
	}
	if n, err := strconv.Atoi(string(hdr[len("Content-Length: "):])); err != nil || n != len(b) {
		t.Fatalf("Content-Length %s for %d bytes", hdr, len(b))
	}
	return b
}

// An urgent frame goes out ahead of every frame waiting, behind only the
// one being written.
func TestOutboxUrgentFrameJumpsTheQueue(t *testing.T) {
	r, w := io.Pipe()
	o := newOutbox(w, 1<<20)
	mk := func(s string) *frame {
		f := newFrame()
		f.b = append(f.b, s...)
		f.finish()
		return f
	}
	sent := make(chan error, 1)
	go func() { sent <- o.send(mk("first"), false) }() // writes, and blocks in the pipe
	first := make([]byte, len(mk("first").bytes()))
	if _, err := io.ReadFull(r, first[:1]); err != nil { // the writer is now inside Write
		t.Fatal(err)
	}
	for _, s := range []string{"second", "third"} {
		if err := o.send(mk(s), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.send(mk("urgent"), true); err != nil {
		t.Fatal(err)
	}
	go func() {
		<-sent
		w.Close()
	}()
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, part := range strings.Split(string(first[:1])+string(rest), "Content-Length: ") {
		if _, b, ok := strings.Cut(part, "\r\n\r\n"); ok {
			order = append(order, b)
		}
	}
	if got := strings.Join(order, " "); got != "first urgent second third" {
		t.Fatalf("frames went out as %q", got)
	}
}

// tools/call's params decode as encoding/json decodes them into the
// typed struct, every field; what does not fit is InvalidParams.
func TestToolCallParams(t *testing.T) {
	var got *protocol.ToolCallParams
	m := typed(protocol.ToolsCall, func(_ context.Context, p *protocol.ToolCallParams) (protocol.ToolCallResult, error) {
		got = p
		return protocol.ToolCallResult{}, nil
	})
	for _, in := range []string{
		`{"name":"read_file","arguments":{"path":"a"},"requestId":"r","tokenBudget":5,"session":"s"}`,
		`{"name":"x"}`, `{}`, `null`, ``, `{"name":"a\nb","arguments":null}`, `{"name":null}`, `{"tokenBudget":null}`,
		`{"name":7}`, `{"tokenBudget":1.5}`, `{"tokenBudget":"5"}`, `{"Name":"x"}`, `{"n\u0061me":"x"}`, `[1,2]`, `{"other":{"deep":[1]}}`,
	} {
		got = nil
		_, err := m(context.Background(), json.RawMessage(in))
		var want protocol.ToolCallParams
		jerr := json.Unmarshal([]byte(in), &want)
		if in == "" || in == "null" {
			jerr, want = nil, protocol.ToolCallParams{}
		}
		if jerr != nil {
			var rpc *jsonrpc2.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.InvalidParams || got != nil {
				t.Errorf("%s: %v (handler ran: %v); encoding/json says %v", in, err, got != nil, jerr)
			}
			continue
		}
		if err != nil || got == nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: decoded %+v (%v), want %+v", in, got, err, want)
		}
	}
}
