// Package rpctest drives a Tether daemon over JSON-RPC for tests and
// benchmarks: a client connection that can also send raw, malformed bytes
// and collects the error replies the daemon sends with a null id, and
// helpers that build and start the real binary.
package rpctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Handler answers a call from the daemon (approval/request, user/ask).
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Client is a JSON-RPC connection to a daemon.
type Client struct {
	jsonrpc2.Conn
	stream *stream

	mu            sync.Mutex
	notifications []Notification
}

// Notification is one notification the daemon sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// NewClient connects to a daemon reading from r (its stdout) and writing to
// w (its stdin). handle answers the daemon's calls; nil answers every call
// with MethodNotFound. Close w, or call Close, to end the connection.
func NewClient(ctx context.Context, r io.Reader, w io.WriteCloser, handle Handler) *Client {
	c := &Client{stream: &stream{
		r:       bufio.NewReader(r),
		w:       w,
		orphans: make(chan Orphan, 64),
		expect:  map[jsonrpc2.ID]chan *jsonrpc2.Response{},
	}}
	c.Conn = jsonrpc2.NewConn(c.stream)
	c.Conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if call, ok := req.(*jsonrpc2.Call); ok {
			if handle == nil {
				return reply(ctx, nil, jsonrpc2.ErrMethodNotFound)
			}
			// Answer in a goroutine: a handler that waits must not stop
			// the client reading the daemon's other messages.
			go func() {
				res, err := handle(ctx, call.Method(), json.RawMessage(call.Params()))
				_ = reply(ctx, res, err)
			}()
			return nil
		}
		c.mu.Lock()
		c.notifications = append(c.notifications, Notification{req.Method(), json.RawMessage(req.Params())})
		c.mu.Unlock()
		return nil
	})
	return c
}

// CallRaw calls method and returns the raw result, or the daemon's
// *jsonrpc2.Error.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	_, err := c.Conn.Call(ctx, method, params, &raw)
	return raw, err
}

// Raw writes bytes to the daemon as they are: for malformed frames. It never
// interleaves with the connection's own frames.
func (c *Client) Raw(b []byte) error { return c.stream.writeRaw(b) }

// Frame writes body framed with a correct Content-Length header.
func (c *Client) Frame(body string) error {
	return c.Raw([]byte("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
}

// Orphan is an error reply the client could not match to a call: its id
// is null (the daemon could not read the message it answers) or not an id
// the jsonrpc2 library can represent.
type Orphan struct {
	ID    json.RawMessage // "null" when the id was null or absent
	Error *jsonrpc2.Error
}

// NextOrphan waits for the next error reply that matches no call.
func (c *Client) NextOrphan(ctx context.Context) (Orphan, error) {
	select {
	case o := <-c.stream.orphans:
		return o, nil
	case <-ctx.Done():
		return Orphan{}, fmt.Errorf("no unmatched error reply: %w", ctx.Err())
	case <-c.Conn.Done():
		return Orphan{}, errors.New("the connection ended before an unmatched error reply arrived")
	}
}

// PendingOrphans is how many unmatched error replies are queued, unread.
func (c *Client) PendingOrphans() int { return len(c.stream.orphans) }

// Pending is a call whose id the test chose, so that it can be cancelled
// with $/cancelRequest while it runs.
type Pending struct {
	ID   jsonrpc2.ID
	c    *Client
	done chan *jsonrpc2.Response
}

// Expect registers a reply the client should route to the returned
// Pending rather than to the connection: for calls the test writes itself.
func (c *Client) Expect(id string) *Pending {
	p := &Pending{ID: jsonrpc2.NewStringID(id), c: c, done: make(chan *jsonrpc2.Response, 1)}
	c.stream.mu.Lock()
	c.stream.expect[p.ID] = p.done
	c.stream.mu.Unlock()
	return p
}

// Go sends a call with the string id id and returns without waiting.
func (c *Client) Go(ctx context.Context, id, method string, params any) (*Pending, error) {
	p := c.Expect(id)
	call, err := jsonrpc2.NewCall(p.ID, method, params)
	if err != nil {
		return nil, err
	}
	if _, err := c.stream.Write(ctx, call); err != nil {
		return nil, err
	}
	return p, nil
}

// Cancel sends $/cancelRequest for the call.
func (p *Pending) Cancel(ctx context.Context) error {
	return p.c.Notify(ctx, "$/cancelRequest", map[string]any{"id": &p.ID})
}

// Wait returns the call's raw result, or the daemon's *jsonrpc2.Error.
func (p *Pending) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case r := <-p.done:
		if r.Err() != nil {
			return nil, r.Err()
		}
		return json.RawMessage(r.Result()), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no reply to %v: %w", p.ID, ctx.Err())
	}
}

// Answered reports whether the reply has arrived, without waiting.
func (p *Pending) Answered() bool { return len(p.done) > 0 }

// Notifications returns the notifications received so far.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Notification(nil), c.notifications...)
}

// stream is a deliberately plain LSP framing, separate from the daemon's,
// so the two check each other. It sets aside error replies the jsonrpc2
// library cannot match to a call (null ids, odd ids), which would
// otherwise end the connection, and routes replies to Pending calls.
type stream struct {
	r       *bufio.Reader
	wmu     sync.Mutex
	w       io.WriteCloser
	orphans chan Orphan

	mu     sync.Mutex
	expect map[jsonrpc2.ID]chan *jsonrpc2.Response
}

func (s *stream) Read(context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := s.readFrame()
		if err != nil {
			return nil, 0, err
		}
		msg, err := decode(body)
		if err != nil {
			return nil, 0, fmt.Errorf("the daemon sent an undecodable message %q: %w", body, err)
		}
		if orphan, ok := msg.(Orphan); ok {
			select {
			case s.orphans <- orphan:
			default:
			}
			continue
		}
		if r, ok := msg.(*jsonrpc2.Response); ok {
			s.mu.Lock()
			ch := s.expect[r.ID()]
			delete(s.expect, r.ID())
			s.mu.Unlock()
			if ch != nil {
				ch <- r
				continue
			}
		}
		return msg.(jsonrpc2.Message), int64(len(body)), nil
	}
}

// decode turns a body into a jsonrpc2 message, or an Orphan for an error
// reply whose id the library cannot hold. It parses the body once, where
// jsonrpc2.DecodeMessage would allocate a 32 KB buffer for every message:
// the benchmarks time the daemon, not this client.
func decode(body []byte) (any, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc2.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	var id jsonrpc2.ID
	idOK := len(m.ID) > 0 && string(m.ID) != "null" && json.Unmarshal(m.ID, &id) == nil
	switch {
	case m.Method != "" && len(m.ID) == 0:
		return jsonrpc2.NewNotification(m.Method, m.Params)
	case m.Method != "" && idOK:
		return jsonrpc2.NewCall(id, m.Method, m.Params)
	case m.Error != nil && !idOK:
		if len(m.ID) == 0 {
			m.ID = json.RawMessage("null")
		}
		return Orphan{ID: m.ID, Error: m.Error}, nil
	case idOK && m.Error != nil:
		return jsonrpc2.NewResponse(id, nil, m.Error)
	case idOK:
		return jsonrpc2.NewResponse(id, m.Result, nil)
	}
	return nil, errors.New("neither a request nor a response")
}

func (s *stream) readFrame() ([]byte, error) {
	hdr, err := textproto.NewReader(s.r).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("the daemon sent a bad Content-Length: %w", err)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(s.r, body)
	return body, err
}

func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	var frame bytes.Buffer
	fmt.Fprintf(&frame, "Content-Length: %d\r\n\r\n", len(body))
	frame.Write(body)
	return int64(frame.Len()), s.writeRaw(frame.Bytes())
}

func (s *stream) writeRaw(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.w.Write(b)
	return err
}

func (s *stream) Close() error { return s.w.Close() }
