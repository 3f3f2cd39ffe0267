package daemon

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/protocol"
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
	f.b = appendString(f.b, method)
	f.b = append(f.b, `,"params":`...)
	var err error
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
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, int64(wire.Code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, wire.Message)
	if wire.Data != nil {
		b = append(b, `,"data":`...)
		data, err := json.Marshal(wire.Data)
		if err != nil {
			return b, err
		}
		b = append(b, data...)
	}
	return append(b, '}'), nil
}

// appendValue writes v as JSON. A tool call's result, the reply nearly
// every call gets, is written by hand; anything else goes through
// encoding/json, into b directly.
func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case protocol.ToolCallResult:
		return appendToolCallResult(b, &v), nil
	case json.RawMessage:
		if len(v) == 0 {
			return append(b, "null"...), nil
		}
		return append(b, v...), nil
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

// appendToolCallResult writes r as encoding/json would (its field order
// and omitempty rules).
func appendToolCallResult(b []byte, r *protocol.ToolCallResult) []byte {
	b = append(b, `{"content":`...)
	b = appendString(b, r.Content)
	b = append(b, `,"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	if r.Diff != "" {
		b = append(b, `,"diff":`...)
		b = appendString(b, r.Diff)
	}
	if r.Checkpoint != "" {
		b = append(b, `,"checkpoint":`...)
		b = appendString(b, r.Checkpoint)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, as encoding/json does with HTML
// escaping off: quotes, backslashes and control characters escaped,
// invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped (JavaScript reads
// them as line ends). Plain ASCII is copied eight bytes at a time.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	i := 0
	for i < len(s) {
		for i+8 <= len(s) {
			w := load64(s, i)
			// Stop at a byte below 0x20, a quote, a backslash, or any
			// byte of a multi-byte character.
			if (((w-ones*0x20)|((w^(ones*'"'))-ones)|((w^(ones*'\\'))-ones))&^w|w)&highs != 0 {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i++
				start = i
				continue
			}
			if r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, hexDigits[r&0xf])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// load64 reads eight bytes of s little-endian; the compiler makes it one load.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// SWAR constants: a byte of each, repeated in a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
