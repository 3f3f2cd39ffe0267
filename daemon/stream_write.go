package daemon

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// Write implements jsonrpc2.Stream. Each frame goes out in one write, so
// frames from concurrent calls never interleave.
func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	var data []byte
	var err error
	if r, ok := msg.(*jsonrpc2.Response); ok {
		data, err = encodeResponse(r)
	} else {
		data, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return s.writeFrame(data)
}

// encodeResponse writes a reply around its result, which NewResponse has
// already marshalled. Marshalling the Response itself would compact and
// escape the whole result twice more: for a large tool result, most of the
// daemon's work.
func encodeResponse(r *jsonrpc2.Response) ([]byte, error) {
	id := r.ID()
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, len(r.Result())+64)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, idJSON...)
	if r.Err() != nil {
		var wire *jsonrpc2.Error
		if !errors.As(r.Err(), &wire) {
			// The library would send code 0; an unexplained error is internal.
			wire = jsonrpc2.NewError(jsonrpc2.InternalError, r.Err().Error())
		}
		e, err := json.Marshal(wire)
		if err != nil {
			return nil, err
		}
		buf = append(buf, `,"error":`...)
		buf = append(buf, e...)
	} else {
		result := r.Result()
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		buf = append(buf, `,"result":`...)
		buf = append(buf, result...)
	}
	return append(buf, '}'), nil
}

func (s *stream) writeFrame(body []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return 0, errClosed
	}
	s.wbuf = append(s.wbuf[:0], contentLength+": "...)
	s.wbuf = strconv.AppendInt(s.wbuf, int64(len(body)), 10)
	s.wbuf = append(s.wbuf, "\r\n\r\n"...)
	s.wbuf = append(s.wbuf, body...)
	n, err := s.out.Write(s.wbuf)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // do not hold on to the buffer of one huge reply
	}
	return int64(n), err
}

var errClosed = errors.New("the connection is closed")

// writeError sends an error response; id nil means null (the request's id
// could not be read).
func (s *stream) writeError(id json.RawMessage, code jsonrpc2.Code, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, msg)})
	if err == nil {
		_, err = s.writeFrame(body)
	}
	if err != nil {
		s.log.Warn("could not send an error reply", "err", err)
	}
}

// closeWrites makes every later write fail: nothing reaches the output
// after Serve returns.
func (s *stream) closeWrites() {
	s.wmu.Lock()
	s.closed = true
	s.wmu.Unlock()
}
