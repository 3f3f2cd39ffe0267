package daemon

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageBytes is the largest message body the daemon accepts. A larger
// Content-Length is read past (streamed to io.Discard, never allocated) and
// answered with an error.
const MaxMessageBytes = 64 << 20

const (
	// maxHeaderLine bounds one header line; real ones are under 60 bytes.
	maxHeaderLine = 4 << 10
	// idScanBytes is how much of an oversized body is kept to look for its
	// id, so the error reply can name the request it answers.
	idScanBytes = 64 << 10
	// readBufferBytes is the reader's buffer: a header line and most
	// message bodies fit in it whole.
	readBufferBytes = 64 << 10
)

const contentLength = "Content-Length"

// stream reads LSP-framed messages and survives bad input: a malformed
// frame is answered with a JSON-RPC error (through the outbox) and reading
// goes on. Read returns only well-formed messages, and an error only when
// the input itself ends or fails.
type stream struct {
	in      *bufio.Reader
	inClose io.Closer // in's Closer, if it has one
	maxBody int64
	log     *slog.Logger
	out     *outbox

	// resyncing is set after a garbage header: lines are skipped until one
	// holding a Content-Length header.
	resyncing bool
}

func newStream(in io.Reader, out *outbox, maxBody int64, log *slog.Logger) *stream {
	s := &stream{in: bufio.NewReaderSize(in, readBufferBytes), out: out, maxBody: maxBody, log: log}
	if c, ok := in.(io.Closer); ok {
		s.inClose = c
	}
	return s
}

// frameError is a broken frame the peer is told about; reading goes on.
type frameError struct {
	code jsonrpc2.Code
	id   []byte // the request's id when it could be recovered, else nil (null)
	msg  string
}

func (e *frameError) Error() string { return e.msg }

// Read returns the next well-formed message.
func (s *stream) Read() (*message, error) {
	for {
		body, err := s.readFrame()
		var fe *frameError
		if errors.As(err, &fe) {
			s.log.Warn("bad frame from the client", "err", fe.msg)
			s.writeError(fe.id, fe.code, fe.msg)
			continue
		}
		if err != nil {
			return nil, err
		}
		msg, fe := decodeBody(body)
		if fe != nil {
			s.log.Warn("bad message from the client", "err", fe.msg)
			s.writeError(fe.id, fe.code, fe.msg)
			continue
		}
		if msg == nil { // a response nobody can be told about: dropped
			continue
		}
		return msg, nil
	}
}

// writeError sends an error response; id nil means null (the request's id
// could not be read).
func (s *stream) writeError(id []byte, code jsonrpc2.Code, msg string) {
	f, err := replyFrame(id, nil, jsonrpc2.NewError(code, msg))
	if err == nil {
		err = s.out.send(f, false)
	}
	if err != nil {
		s.log.Warn("could not send an error reply", "err", err)
	}
}

// readFrame reads headers and one body. It returns a *frameError for a
// frame that is broken but can be reported, and the reader's own error
// (io.EOF) when the input ends.
func (s *stream) readFrame() ([]byte, error) {
	length := int64(-1)
	inHeaders := false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if s.resyncing {
			i := bytes.Index(line, []byte(contentLength+":"))
			if i < 0 {
				continue
			}
			s.resyncing = false
			line = line[i:]
		}
		if len(line) == 0 {
			if !inHeaders {
				continue // stray blank lines between frames are harmless
			}
			break
		}
		inHeaders = true
		name, value, ok := splitHeader(line)
		if !ok {
			s.resyncing = true
			return nil, &frameError{code: jsonrpc2.ParseError, msg: fmt.Sprintf(
				"malformed header line %s: expected \"Content-Length: N\"; skipping to the next Content-Length header", quoteShort(line))}
		}
		if !bytes.EqualFold(name, []byte(contentLength)) {
			continue // other headers (Content-Type) carry nothing we need
		}
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 {
			s.resyncing = true
			return nil, &frameError{code: jsonrpc2.ParseError, msg: fmt.Sprintf(
				"bad Content-Length %s: it must be a byte count; skipping to the next Content-Length header", quoteShort(value))}
		}
		length = n
	}
	switch {
	case length < 0:
		s.resyncing = true
		return nil, &frameError{code: jsonrpc2.ParseError, msg: "a message header had no Content-Length; skipping to the next Content-Length header"}
	case length == 0:
		return nil, &frameError{code: jsonrpc2.InvalidRequest, msg: "empty message (Content-Length: 0)"}
	case length > s.maxBody:
		return nil, s.discardBody(length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, eofIfShort(err)
	}
	return body, nil
}

// discardBody reads past an oversized body without keeping it, except its
// start, where the id usually is.
func (s *stream) discardBody(length int64) error {
	head := make([]byte, min(length, idScanBytes))
	if _, err := io.ReadFull(s.in, head); err != nil {
		return eofIfShort(err)
	}
	if _, err := io.CopyN(io.Discard, s.in, length-int64(len(head))); err != nil {
		return eofIfShort(err)
	}
	return &frameError{code: jsonrpc2.InvalidRequest, id: scanID(head), msg: fmt.Sprintf(
		"message of %d bytes is over Tether's limit of %d bytes and was discarded unread; send large content in smaller pieces",
		length, s.maxBody)}
}

// readLine reads one line without its line ending. A line longer than
// maxHeaderLine is consumed whole but only its start is returned: it is
// garbage either way, and must not cost memory.
func (s *stream) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if room := maxHeaderLine - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// splitHeader splits "Name: value"; ok is false for anything that is not a
// header: no colon, or a name that is not an HTTP token (a JSON body sent
// without headers has a colon too, after `{"jsonrpc"`).
func splitHeader(line []byte) (name, value []byte, ok bool) {
	name, value, ok = bytes.Cut(line, []byte(":"))
	if !ok || len(name) == 0 {
		return nil, nil, false
	}
	for _, c := range name {
		if !isTokenByte(c) {
			return nil, nil, false
		}
	}
	return name, bytes.TrimSpace(value), true
}

// isTokenByte reports whether c may appear in an HTTP header name (RFC 9110 tchar).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Close closes the input, if it can be closed.
func (s *stream) Close() error {
	if s.inClose != nil {
		return s.inClose.Close()
	}
	return nil
}

// eofIfShort reports a frame cut off by the end of input as the end of input.
func eofIfShort(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	return err
}

func quoteShort(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
