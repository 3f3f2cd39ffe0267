package daemon

import (
	"bytes"
	"strconv"

	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// envelope holds every field a JSON-RPC message may carry, raw, so that
// each can be checked before the library decodes the message: the library
// turns many invalid messages into responses nobody waits for, or fails
// the whole connection.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeBody turns one frame's body into a message. A body that is not
// JSON is a ParseError; JSON that is not a valid request is an
// InvalidRequest, answered with the request's id when it has a usable one.
// A response that cannot be matched to a call is dropped (msg and error
// both nil): JSON-RPC never answers a response.
func decodeBody(body []byte) (jsonrpc2.Message, *frameError) {
	if !json.Valid(body) {
		return nil, &frameError{code: jsonrpc2.ParseError, msg: "the message body is not valid JSON"}
	}
	switch trimmed := bytes.TrimLeft(body, " \t\r\n"); trimmed[0] {
	case '{':
	case '[':
		return nil, invalid(nil, "batch messages (JSON arrays) are not supported: send one message per frame")
	default:
		return nil, invalid(nil, "a JSON-RPC message must be a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, invalid(nil, "the message could not be decoded: "+err.Error())
	}
	echo, idOK := requestID(env.ID)
	if env.Method == nil {
		if env.Result == nil && env.Error == nil {
			return nil, invalid(echo, "not a JSON-RPC message: it has neither a method (request) nor a result or error (response)")
		}
		if !idOK {
			return nil, nil
		}
		return response(env)
	}
	if string(env.JSONRPC) != `"2.0"` {
		return nil, invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	var method string
	if err := json.Unmarshal(env.Method, &method); err != nil || method == "" {
		return nil, invalid(echo, `"method" must be a non-empty string`)
	}
	if env.ID != nil && !idOK {
		return nil, invalid(echo, `"id" must be a non-empty string or an integer that fits in 32 bits`)
	}
	params := bytes.TrimSpace(env.Params)
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && string(params) != "null" {
		return nil, invalid(echo, `"params" must be an object or an array`)
	}
	// Built from the parts already decoded: the library's DecodeMessage
	// would parse the body a second time, with a fresh 32 KB buffer.
	var msg jsonrpc2.Message
	var err error
	if env.ID == nil {
		msg, err = jsonrpc2.NewNotification(method, json.RawMessage(params))
	} else {
		msg, err = jsonrpc2.NewCall(libraryID(env.ID), method, json.RawMessage(params))
	}
	if err != nil {
		return nil, invalid(echo, "the message could not be decoded: "+err.Error())
	}
	return msg, nil
}

// response builds a reply from the client to one of the daemon's calls. A
// malformed one is dropped: it answers nothing anyone can be told about.
func response(env envelope) (jsonrpc2.Message, *frameError) {
	var rpcErr error
	if env.Error != nil && string(env.Error) != "null" {
		var e jsonrpc2.Error
		if json.Unmarshal(env.Error, &e) != nil {
			return nil, nil
		}
		rpcErr = &e
	}
	msg, err := jsonrpc2.NewResponse(libraryID(env.ID), env.Result, rpcErr)
	if err != nil {
		return nil, nil
	}
	return msg, nil
}

// libraryID converts an id requestID accepted.
func libraryID(raw json.RawMessage) jsonrpc2.ID {
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return jsonrpc2.NewStringID(s)
	}
	n, _ := strconv.ParseInt(string(raw), 10, 32)
	return jsonrpc2.NewNumberID(int32(n))
}

func invalid(id json.RawMessage, msg string) *frameError {
	return &frameError{code: jsonrpc2.InvalidRequest, id: id, msg: msg}
}

// requestID checks a raw id. echo is the id to put in an error reply (nil
// for null, or a value that is not an id at all); ok says the library can
// represent it: a non-empty string, or an integer within int32.
func requestID(raw json.RawMessage) (echo json.RawMessage, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
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
// so an oversized request can still be answered by id. It gives up (nil)
// when the id comes after a value too long for head.
func scanID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" {
			if id, ok := requestID(json.RawMessage(value)); ok {
				return id
			}
			return nil
		}
	}
	return nil
}
