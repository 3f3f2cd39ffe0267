package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"go.lsp.dev/jsonrpc2"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// Limits on the JSON of one message, checked in the first pass over it,
// before anything is decoded: a frame under the size cap may still nest
// ten million arrays deep (a recursive decoder runs out of stack) or hold
// millions of tiny values (each of which costs a decoder far more memory
// than its few bytes on the wire).
const (
	// MaxJSONDepth is how deeply objects and arrays may nest. Real
	// messages nest under ten levels.
	MaxJSONDepth = 128
	// MaxJSONValues is how many JSON values (objects, arrays, strings,
	// numbers, literals) one message may hold: room for thousands of
	// diagnostics in one diagnostics/publish, and a cap on what decoding
	// any message can cost.
	MaxJSONValues = 1 << 18
)

// message is one JSON-RPC message from the client, checked and cut into
// its parts. The raw parts point into the frame's body; nothing is copied.
type message struct {
	// method is set for a call or a notification, empty for a response.
	method string
	// id is the request's id; rawID is that id as the client wrote it,
	// echoed in the reply, and nil for a notification.
	id     jsonrpc2.ID
	rawID  []byte
	params []byte
	// A response carries result, or err.
	result []byte
	err    *jsonrpc2.Error
	// size is the body's length in bytes.
	size int
}

// envelope holds every field a JSON-RPC message may carry, raw, so that
// each can be checked before anything is decoded.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

func (e *envelope) member(key, value []byte) {
	if bytes.IndexByte(key, '\\') >= 0 { // an escaped key: rare, decoded
		k, _ := jsonscan.Unquote(key)
		key = []byte(strconv.Quote(k))
	}
	switch string(key) {
	case `"jsonrpc"`:
		e.JSONRPC = value
	case `"id"`:
		e.ID = value
	case `"method"`:
		e.Method = value
	case `"params"`:
		e.Params = value
	case `"result"`:
		e.Result = value
	case `"error"`:
		e.Error = value
	}
}

// decodeBody checks one frame's body and cuts it into a message, in one
// pass. A body that is not JSON is a ParseError; JSON that is not a valid
// request, or passes the limits above, is an InvalidRequest, answered with
// the request's id when it has a usable one. A response that cannot be
// matched to a call is dropped (message and error both nil): JSON-RPC
// never answers a response.
func decodeBody(body []byte) (*message, *frameError) {
	var env envelope
	top, fault := jsonscan.Top(body, MaxJSONDepth, MaxJSONValues, env.member)
	switch fault {
	case jsonscan.Syntax:
		return nil, &frameError{code: jsonrpc2.ParseError, msg: "the message body is not valid JSON"}
	case jsonscan.Depth:
		echo, _ := requestID(env.ID)
		return nil, invalid(echo, fmt.Sprintf("the message nests objects and arrays more than %d levels deep, over Tether's limit, and was not read; send flatter data", MaxJSONDepth))
	case jsonscan.Values:
		echo, _ := requestID(env.ID)
		return nil, invalid(echo, fmt.Sprintf("the message holds more than %d JSON values, over Tether's limit, and was not read; send fewer items in one message", MaxJSONValues))
	}
	switch top {
	case '{':
	case '[':
		return nil, invalid(nil, "batch messages (JSON arrays) are not supported: send one message per frame")
	default:
		return nil, invalid(nil, "a JSON-RPC message must be a JSON object")
	}
	echo, idOK := requestID(env.ID)
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			return nil, invalid(echo, "not a JSON-RPC message: it has neither a method (request) nor a result or error (response)")
		}
		if !idOK {
			return nil, nil
		}
		return response(env, len(body)), nil
	}
	if string(env.JSONRPC) != `"2.0"` {
		return nil, invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	method, ok := methodName(env.Method)
	if !ok {
		return nil, invalid(echo, `"method" must be a non-empty string`)
	}
	if env.ID != nil && !idOK {
		return nil, invalid(echo, `"id" must be a non-empty string or an integer that fits in 32 bits`)
	}
	params := env.Params
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && string(params) != "null" {
		return nil, invalid(echo, `"params" must be an object or an array`)
	}
	m := &message{method: method, params: params, size: len(body)}
	if env.ID != nil {
		m.id, m.rawID = libraryID(echo), echo
	}
	return m, nil
}

// methodName decodes a method name; ok is false for anything but a
// non-empty string.
func methodName(raw []byte) (string, bool) {
	name, ok := jsonscan.Unquote(raw)
	return name, ok && name != ""
}

// response builds a reply from the client to one of the daemon's calls. A
// malformed one is dropped: it answers nothing anyone can be told about.
func response(env envelope, size int) *message {
	m := &message{id: libraryID(env.ID), rawID: env.ID, result: env.Result, size: size}
	if env.Error != nil && string(env.Error) != "null" {
		var e jsonrpc2.Error
		if json.Unmarshal(env.Error, &e) != nil {
			return nil
		}
		m.err = &e
	}
	return m
}

// libraryID converts an id requestID accepted.
func libraryID(raw []byte) jsonrpc2.ID {
	if raw[0] == '"' {
		s, _ := jsonscan.Unquote(raw)
		return jsonrpc2.NewStringID(s)
	}
	n, _ := strconv.ParseInt(string(raw), 10, 32)
	return jsonrpc2.NewNumberID(int32(n))
}

func invalid(id []byte, msg string) *frameError {
	return &frameError{code: jsonrpc2.InvalidRequest, id: id, msg: msg}
}

// requestID checks a raw id. echo is the id to put in an error reply (nil
// for null, or a value that is not an id at all); ok says the library can
// represent it: a non-empty string, or an integer within int32.
func requestID(raw []byte) (echo []byte, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		s, valid := jsonscan.Unquote(raw)
		if !valid {
			return nil, false
		}
		return raw, s != ""
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := strconv.ParseInt(string(raw), 10, 32)
		return raw, err == nil
	}
	return nil, false
}

// scanID looks for the top-level "id" of a message given only its start,
// so an oversized request can still be answered by id.
func scanID(head []byte) []byte {
	return jsonscan.LeadingID(head, requestID)
}
