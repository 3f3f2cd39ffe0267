package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// server is one process the benchmark talks to over stdio: Tether and the
// do-nothing server with LSP framing, the MCP server with one JSON message
// a line. Requests are encoded before the clock starts and replies decoded
// after it stops, so a round trip is the pipes and the server.
type server struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	framed bool // LSP framing; otherwise newline-delimited (MCP's stdio)
	nextID int
	waited chan error
}

func startServer(name string, framed bool, env []string, bin string, args ...string) (*server, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), framed: framed, waited: make(chan error, 1)}
	go func() { s.waited <- cmd.Wait() }()
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop ends the process: its input closed, then killed if it lingers.
func (s *server) stop() {
	s.in.Close()
	select {
	case <-s.waited:
	case <-time.After(2 * time.Second):
		s.cmd.Process.Kill()
		<-s.waited
	}
}

// request encodes a call with the next id.
func (s *server) request(method string, params any) ([]byte, int, error) {
	s.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	return s.frame(body), s.nextID, nil
}

// notification encodes a notification.
func (s *server) notification(method string, params any) ([]byte, error) {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return s.frame(body), nil
}

func (s *server) frame(body []byte) []byte {
	if s.framed {
		return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	return append(body, '\n')
}

// roundTrip writes a request and reads until its reply; the duration is
// from the first byte written to the last byte read.
func (s *server) roundTrip(req []byte, id int) (reply []byte, took time.Duration, err error) {
	t0 := time.Now()
	if _, err := s.in.Write(req); err != nil {
		return nil, 0, err
	}
	for {
		msg, err := s.read()
		took := time.Since(t0)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", s.name, err)
		}
		// Notifications and calls from the server (logs, progress) pass.
		if isReplyTo(msg, id) {
			return msg, took, nil
		}
	}
}

// isReplyTo reports whether msg is the response with the given id: it has
// that top-level id and no method.
func isReplyTo(msg []byte, id int) bool {
	var gotID []byte
	method := false
	jsonscan.Members(msg, func(key, value []byte) {
		switch string(key) {
		case `"id"`:
			gotID = value
		case `"method"`:
			method = true
		}
	})
	return !method && string(gotID) == strconv.Itoa(id)
}

func (s *server) read() ([]byte, error) {
	if !s.framed {
		line, err := s.out.ReadBytes('\n')
		return bytes.TrimSpace(line), err
	}
	n := -1
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if line == "\r\n" {
			break
		}
		if v, ok := cutPrefixFold(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(string(bytes.TrimSpace([]byte(v)))); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(s.out, body)
	return body, err
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && bytes.EqualFold([]byte(s[:len(prefix)]), []byte(prefix)) {
		return s[len(prefix):], true
	}
	return "", false
}

// call makes one request and returns its reply's result, failing on an
// error reply.
func (s *server) call(method string, params any) (json.RawMessage, time.Duration, error) {
	req, id, err := s.request(method, params)
	if err != nil {
		return nil, 0, err
	}
	reply, took, err := s.roundTrip(req, id)
	if err != nil {
		return nil, 0, err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		return nil, 0, fmt.Errorf("%s: %w in %.200s", s.name, err, reply)
	}
	if r.Error != nil {
		return nil, took, fmt.Errorf("%s: %s error %d: %s", s.name, method, r.Error.Code, r.Error.Message)
	}
	return r.Result, took, nil
}

// notify sends a notification.
func (s *server) notify(method string, params any) error {
	msg, err := s.notification(method, params)
	if err != nil {
		return err
	}
	_, err = s.in.Write(msg)
	return err
}

// toolCall runs one tool and checks it did not fail; text is the result's
// text (Tether's content, or the MCP result's first text block).
func (s *server) toolCall(params any) (text string, took time.Duration, err error) {
	res, took, err := s.call("tools/call", params)
	if err != nil {
		return "", 0, err
	}
	var r struct {
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", 0, err
	}
	if len(r.Content) > 0 && r.Content[0] == '"' {
		_ = json.Unmarshal(r.Content, &text)
	} else {
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(r.Content, &blocks)
		if len(blocks) > 0 {
			text = blocks[0].Text
		}
	}
	if r.IsError {
		return text, took, fmt.Errorf("%s: the tool failed: %.300s", s.name, text)
	}
	return text, took, nil
}
