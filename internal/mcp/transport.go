package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// MaxLineBytes bounds one message from the client. A longer line is
// discarded (answered with an error when its id can be found in its first
// bytes) and the session goes on.
const MaxLineBytes = 16 << 20

// headBytes is how much of an over-long line is kept to look for its id.
const headBytes = 4 << 10

// lineTransport speaks newline-delimited JSON-RPC over a reader and a
// writer, like the SDK's stdio transport, except that a line it cannot
// use does not end the session: the SDK's transport fails the whole
// connection on the first line it cannot decode. Such a line gets an
// error response when it carries an id, and is logged and skipped when
// it does not.
type lineTransport struct {
	in      io.ReadCloser
	out     io.Writer
	log     *slog.Logger
	maxLine int
}

// Connect implements sdk.Transport.
func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	max := t.maxLine
	if max <= 0 {
		max = MaxLineBytes
	}
	c := &lineConn{
		in:      t.in,
		out:     t.out,
		log:     t.log,
		maxLine: max,
		items:   make(chan readItem),
		closed:  make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// readItem is one message read, or the end of the input.
type readItem struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	in      io.ReadCloser
	out     io.Writer
	log     *slog.Logger
	maxLine int

	wmu sync.Mutex // one message on the wire at a time

	items     chan readItem
	closeOnce sync.Once
	closed    chan struct{}
}

func (c *lineConn) SessionID() string { return "" }

// Read returns the next usable message. It fails only when the input
// ends or cannot be read.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case it := <-c.items:
		return it.msg, it.err
	}
}

// Write sends one message as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if line, ok := resultLine(msg); ok {
		return c.writeRaw(line)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

// resultLine writes a successful response around its result as it is: the
// SDK has encoded the result compactly already, and encoding the message
// again would scan (and copy) a large result once more.
func resultLine(msg jsonrpc.Message) ([]byte, bool) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return nil, false
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return nil, false
	}
	const head, mid, tail = `{"jsonrpc":"2.0","id":`, `,"result":`, "}\n"
	line := make([]byte, 0, len(head)+len(id)+len(mid)+len(resp.Result)+len(tail))
	line = append(append(append(append(append(line, head...), id...), mid...), resp.Result...), tail...)
	return line, true
}

func (c *lineConn) writeLine(data []byte) error {
	buf := make([]byte, 0, len(data)+1)
	return c.writeRaw(append(append(buf, data...), '\n'))
}

// writeRaw writes one whole line, newline included.
func (c *lineConn) writeRaw(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return sdk.ErrConnectionClosed
	default:
	}
	_, err := c.out.Write(line)
	return err
}

// Close stops reading; a Read waiting for input returns.
func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// readLoop reads lines until the input ends, handing each usable message
// to Read and answering or skipping the rest.
func (c *lineConn) readLoop() {
	br := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(br, c.maxLine)
		if len(line) > 0 || tooLong {
			if msg := c.parse(line, tooLong); msg != nil {
				if !c.deliver(readItem{msg: msg}) {
					return
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.deliver(readItem{err: err})
			return
		}
	}
}

func (c *lineConn) deliver(it readItem) bool {
	select {
	case c.items <- it:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads up to the next newline. A line longer than max is read to
// its end but only its first headBytes are returned, with tooLong set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case tooLong:
			// Already over: keep reading to the end, keep nothing.
		case len(line)+len(chunk) > max:
			tooLong = true
			keep := min(headBytes, len(line)+len(chunk))
			line = append(line, chunk...)[:keep:keep]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// envelope is every field a JSON-RPC message may carry, raw, so that each
// is checked before the SDK decodes the message.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// parse turns one line into a message, or answers or logs why it cannot.
func (c *lineConn) parse(line []byte, tooLong bool) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 && !tooLong {
		return nil
	}
	if tooLong {
		c.refuse(scanID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is longer than %d bytes, so it was not read; send smaller messages (write large files in sections)", c.maxLine))
		return nil
	}
	if !json.Valid(line) {
		c.refuse(scanID(line), jsonrpc.CodeParseError, "the message is not valid JSON")
		return nil
	}
	switch line[0] {
	case '{':
	case '[':
		c.refuseBatch(line)
		return nil
	default:
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "a JSON-RPC message must be a JSON object")
		return nil
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "the message could not be decoded: "+err.Error())
		return nil
	}
	id, idOK := checkID(env.ID)
	if env.ID != nil && !idOK {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, `"id" must be a string or a number`)
		return nil
	}
	if string(env.JSONRPC) != `"2.0"` {
		c.refuse(id, jsonrpc.CodeInvalidRequest, `"jsonrpc" must be "2.0"`)
		return nil
	}
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			c.refuse(id, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: it has neither a method (request) nor a result or error (response)")
			return nil
		}
		if id == nil {
			c.log.Warn("skipped a response without an id from the client")
			return nil
		}
	} else {
		var method string
		if err := json.Unmarshal(env.Method, &method); err != nil || method == "" {
			c.refuse(id, jsonrpc.CodeInvalidRequest, `"method" must be a non-empty string`)
			return nil
		}
		if p := bytes.TrimSpace(env.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
			c.refuse(id, jsonrpc.CodeInvalidRequest, `"params" must be an object`)
			return nil
		}
	}
	msg, err := message(env, id)
	if err != nil {
		if env.Method == nil {
			// A reply to the server's own call that cannot be read: JSON-RPC
			// never answers a response.
			c.log.Warn("skipped a response from the client that could not be decoded", "err", err)
			return nil
		}
		c.refuse(id, jsonrpc.CodeInvalidRequest, "the message could not be decoded: "+err.Error())
		return nil
	}
	return msg
}

// message builds the SDK's message from the parts already checked, which
// spares decoding the line a second time.
func message(env envelope, rawID json.RawMessage) (jsonrpc.Message, error) {
	var id jsonrpc.ID
	if rawID != nil {
		var v any
		if err := json.Unmarshal(rawID, &v); err != nil {
			return nil, err
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, err
		}
	}
	if env.Method != nil {
		var method string
		if err := json.Unmarshal(env.Method, &method); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: env.Params}, nil
	}
	resp := &jsonrpc.Response{ID: id, Result: env.Result}
	if e := bytes.TrimSpace(env.Error); len(e) > 0 && string(e) != "null" {
		var werr jsonrpc.Error
		if err := json.Unmarshal(e, &werr); err != nil {
			return nil, err
		}
		resp.Error = &werr
	}
	return resp, nil
}

// refuseBatch answers every request of a batch: batches left the protocol
// in 2025-06-18, and no client this server knows sends them.
func (c *lineConn) refuseBatch(line []byte) {
	var items []envelope
	if json.Unmarshal(line, &items) != nil {
		c.refuse(nil, jsonrpc.CodeInvalidRequest, "batch messages (JSON arrays) are not supported")
		return
	}
	answered := false
	for _, it := range items {
		if id, ok := checkID(it.ID); ok && it.Method != nil {
			c.refuse(id, jsonrpc.CodeInvalidRequest, "batch messages (JSON arrays) are not supported: send one message per line")
			answered = true
		}
	}
	if !answered {
		c.log.Warn("skipped a batch message from the client: batches are not supported")
	}
}

// refuse answers a message that could not be used with an error response
// when it has an id, and logs it otherwise.
func (c *lineConn) refuse(id json.RawMessage, code int64, msg string) {
	if id == nil {
		c.log.Warn("skipped a message from the client that has no usable id", "reason", msg)
		return
	}
	c.log.Warn("answered a malformed message from the client with an error", "id", string(id), "reason", msg)
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}}
	data, err := json.Marshal(resp)
	if err != nil {
		return
	}
	if err := c.writeLine(data); err != nil {
		c.log.Warn("could not answer the client", "err", err)
	}
}

// checkID reports whether raw is an id JSON-RPC allows: a string or a
// number. It returns the id to echo (nil when raw is absent or null).
func checkID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, raw == nil
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return raw, json.Unmarshal(raw, &s) == nil
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := strconv.ParseFloat(string(raw), 64)
		return raw, err == nil
	}
	return nil, false
}

// scanID looks for the top-level "id" of a message given only its start
// (a line cut short, or one that is not valid JSON further on).
func scanID(head []byte) json.RawMessage {
	return jsonscan.LeadingID(head, func(raw []byte) ([]byte, bool) { return checkID(raw) })
}
