package daemon

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// headerRoom is kept free at the start of every frame for its header,
// "Content-Length: N\r\n\r\n", which is written once the body's length is
// known: the body is encoded once, in place, and never copied.
const headerRoom = len("Content-Length: ") + 10 + len("\r\n\r\n")

// frame is one outgoing message: header room, then the body.
type frame struct {
	b     []byte
	start int // where the header begins, once finished
}

// maxPooledFrame is the largest buffer kept for reuse: a huge reply's
// buffer is left to the collector.
const maxPooledFrame = 1 << 20

var framePool = sync.Pool{New: func() any { return &frame{b: make([]byte, 0, 8<<10)} }}

func newFrame() *frame {
	f := framePool.Get().(*frame)
	f.b, f.start = f.b[:headerRoom], 0
	return f
}

// finish writes the header into the room before the body.
func (f *frame) finish() {
	var hdr [headerRoom]byte
	h := append(hdr[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(f.b)-headerRoom), 10)
	h = append(h, "\r\n\r\n"...)
	f.start = headerRoom - len(h)
	copy(f.b[f.start:], h)
}

// bytes is the finished frame: header and body.
func (f *frame) bytes() []byte { return f.b[f.start:] }

func (f *frame) release() {
	if cap(f.b) <= maxPooledFrame {
		f.b = f.b[:0]
		framePool.Put(f)
	}
}

// replyFrame encodes the reply to the request whose id is rawID.
func replyFrame(rawID []byte, res any, rpcErr error) (*frame, error) {
	f := newFrame()
	f.b = append(f.b, `{"jsonrpc":"2.0","id":`...)
	if rawID == nil {
		rawID = []byte("null")
	}
	f.b = append(f.b, rawID...)
	var err error
	if rpcErr != nil {
		f.b = append(f.b, `,"error":`...)
		f.b, err = appendError(f.b, rpcErr)
	} else {
		f.b = append(f.b, `,"result":`...)
		f.b, err = appendValue(f.b, res)
	}
	if err != nil {
		f.release()
		return nil, err
	}
	f.b = append(f.b, '}')
	f.finish()
	return f, nil
}

// requestFrame encodes a call (id not nil) or a notification to the client.
func requestFrame(id *int32, method string, params any) (*frame, error) {
	f := newFrame()
	f.b = append(f.b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		f.b = append(f.b, `"id":`...)
		f.b = strconv.AppendInt(f.b, int64(*id), 10)
		f.b = append(f.b, ',')
	}
	f.b = append(f.b, `"method":`...)
	var err error
	if f.b, err = appendValue(f.b, method); err != nil {
		f.release()
		return nil, err
	}
	f.b = append(f.b, `,"params":`...)
	if f.b, err = appendValue(f.b, params); err != nil {
		f.release()
		return nil, err
	}
	f.b = append(f.b, '}')
	f.finish()
	return f, nil
}

// appendError writes a JSON-RPC error object. An error that is not a
// *jsonrpc2.Error is an internal one.
func appendError(b []byte, err error) ([]byte, error) {
	wire, ok := err.(*jsonrpc2.Error)
	if !ok {
		wire = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return appendValue(b, wire)
}

// appendValue writes v as JSON, as encoding/json does with HTML escaping
// off, into b directly.
func appendValue(b []byte, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // Encode's newline
}
