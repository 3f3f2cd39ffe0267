package daemon_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/rpctest"
)

// testMaxBytes is the message limit the malformed-input tests serve with,
// so an oversized message costs kilobytes, not 64 MiB.
const testMaxBytes = 4 << 10

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// Each malformed input gets one error reply, and the next message is
// served as if nothing had happened.
func TestMalformedInputIsAnsweredAndSurvived(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"count","arguments":{"tag":"` + strings.Repeat("x", testMaxBytes) + `"}}}`
	bigNoID := `{"jsonrpc":"2.0","method":"tools/call","params":{"tag":"` + strings.Repeat("x", 2*idScan) + `"},"id":"late"}`
	for _, tc := range []struct {
		name     string
		raw      string
		code     jsonrpc2.Code
		want     string // in the error message
		echoedID string // the id the error reply carries, as JSON; "" for null
	}{
		{"body not JSON", frame(`{"jsonrpc":"2.0","id":1,`), jsonrpc2.ParseError, "not valid JSON", ""},
		{"JSON but not JSON-RPC", frame(`{"hello":"world"}`), jsonrpc2.InvalidRequest, "neither a method", ""},
		{"a JSON string", frame(`"tools/list"`), jsonrpc2.InvalidRequest, "must be a JSON object", ""},
		{"a batch", frame(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`), jsonrpc2.InvalidRequest, "batch", ""},
		{"wrong version", frame(`{"jsonrpc":"1.0","id":"v1","method":"tools/list"}`), jsonrpc2.InvalidRequest, `"2.0"`, `"v1"`},
		{"missing version", frame(`{"id":"v2","method":"tools/list"}`), jsonrpc2.InvalidRequest, `"2.0"`, `"v2"`},
		{"method not a string", frame(`{"jsonrpc":"2.0","id":"m1","method":7}`), jsonrpc2.InvalidRequest, "method", `"m1"`},
		{"null id", frame(`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`), jsonrpc2.InvalidRequest, `"id"`, ""},
		{"fractional id", frame(`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`), jsonrpc2.InvalidRequest, `"id"`, "1.5"},
		{"id beyond 32 bits", frame(`{"jsonrpc":"2.0","id":99999999999,"method":"tools/list"}`), jsonrpc2.InvalidRequest, `"id"`, "99999999999"},
		{"params a string", frame(`{"jsonrpc":"2.0","id":"p1","method":"tools/list","params":"x"}`), jsonrpc2.InvalidRequest, "params", `"p1"`},
		{"oversized, id first", frame(big), jsonrpc2.InvalidRequest, "over Tether's limit", `"big-1"`},
		{"oversized, id too late to find", frame(bigNoID), jsonrpc2.InvalidRequest, "over Tether's limit", ""},
		{"garbage header line", "this is not a header\r\n" + frame(`{"jsonrpc":"2.0","method":"initialized"}`), jsonrpc2.ParseError, "malformed header", ""},
		{"JSON sent without a header", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\r\n", jsonrpc2.ParseError, "malformed header", ""},
		{"bad Content-Length", "Content-Length: lots\r\n\r\n{}", jsonrpc2.ParseError, "bad Content-Length", ""},
		{"negative Content-Length", "Content-Length: -4\r\n\r\n{}", jsonrpc2.ParseError, "bad Content-Length", ""},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{}", jsonrpc2.ParseError, "no Content-Length", ""},
		{"empty body", "Content-Length: 0\r\n\r\n", jsonrpc2.InvalidRequest, "empty message", ""},
		{"a megabyte line", strings.Repeat("z", 1<<20) + "\n", jsonrpc2.ParseError, "malformed header", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t, fixtureOptions{maxMessageBytes: testMaxBytes})
			f.initialize()
			rpcErr := f.sendBad(tc.raw, tc.echoedID)
			if rpcErr.Code != tc.code || !strings.Contains(rpcErr.Message, tc.want) {
				t.Errorf("error %d %q, want %d containing %q", rpcErr.Code, rpcErr.Message, tc.code, tc.want)
			}
			f.tool("count", nil)
			if n := f.client.PendingOrphans(); n != 0 {
				o, _ := f.client.NextOrphan(waitCtx(t))
				t.Fatalf("%d more error replies, first: %+v", n, o.Error)
			}
		})
	}
}

// sendBad writes raw bytes and returns the error reply they draw, checking
// the id it carries: a string id is one the client can match to a call, so
// it is expected as one; any other id (null, 1.5) arrives unmatched.
func (f *fixture) sendBad(raw, echoedID string) *jsonrpc2.Error {
	f.t.Helper()
	var p *rpctest.Pending
	if strings.HasPrefix(echoedID, `"`) {
		p = f.client.Expect(strings.Trim(echoedID, `"`))
	}
	if err := f.client.Raw([]byte(raw)); err != nil {
		f.t.Fatal(err)
	}
	if p != nil {
		_, err := p.Wait(waitCtx(f.t))
		rpcErr, ok := err.(*jsonrpc2.Error)
		if !ok {
			f.t.Fatalf("reply to %s: %v, want an error", echoedID, err)
		}
		return rpcErr
	}
	o, err := f.client.NextOrphan(waitCtx(f.t))
	if err != nil {
		f.t.Fatal(err)
	}
	want := echoedID
	if want == "" {
		want = "null"
	}
	if string(o.ID) != want {
		f.t.Errorf("error reply id %s, want %s", o.ID, want)
	}
	return o.Error
}

// idScan mirrors the daemon's idScanBytes: an id after that much of an
// oversized body cannot be found.
const idScan = 64 << 10

// A response from the client that answers nothing is dropped, never
// answered: answering responses could make two peers argue forever.
func TestStrayResponsesAreNotAnswered(t *testing.T) {
	f := start(t)
	f.initialize()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":424242,"result":{}}`,
		`{"jsonrpc":"2.0","result":1}`,
	} {
		if err := f.client.Raw([]byte(frame(body))); err != nil {
			t.Fatal(err)
		}
	}
	f.tool("count", nil)
	if n := f.client.PendingOrphans(); n != 0 {
		t.Fatalf("%d replies to responses", n)
	}
}

// Frames split across many small writes are read as one.
func TestFramesAcrossWrites(t *testing.T) {
	f := start(t)
	f.initialize()
	raw := []byte(frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) + "\r\n" + frame(`{"jsonrpc":"2.0","method":"$/setTrace"}`))
	for _, chunk := range bytes.SplitAfter(raw, []byte("")) {
		if err := f.client.Raw(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.tool("count", nil)
	if n := f.client.PendingOrphans(); n != 0 {
		o, _ := f.client.NextOrphan(waitCtx(t))
		t.Fatalf("%d error replies, first %+v", n, o.Error)
	}
}
