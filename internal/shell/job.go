package shell

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"time"
)

// ErrKilled is the cause recorded when a job is stopped on request.
var ErrKilled = errors.New("stopped with shell_kill")

// ErrClosing is the cause recorded when the daemon stops its jobs.
var ErrClosing = errors.New("stopped because Tether was shutting down")

// maxLineBytes bounds one line held for filtering; the rest of a longer
// line is skipped, not buffered.
const maxLineBytes = 1 << 20

// Job is one background command.
type Job struct {
	ID      string
	Command string
	Pid     int
	LogPath string
	Started time.Time

	log    *jobLog
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu      sync.Mutex
	outcome Outcome
	// readMu keeps two reads from handing out the same output twice.
	readMu sync.Mutex
	offset int64
}

// Snapshot is what one read of a job shows.
type Snapshot struct {
	Running bool
	// Outcome is how the job ended, when it is no longer running.
	Outcome Outcome
	// Output is the output new since the last read (only matching lines
	// with a filter), bounded.
	Output string
	// NewBytes is how much new output the read covered.
	NewBytes int64
	// Matched counts the lines that matched the filter.
	Matched int
	// Dropped is how much output the log cap has dropped so far.
	Dropped int64
}

// Done is closed when the job has ended and its output is all in the log.
func (j *Job) Done() <-chan struct{} { return j.done }

// Running reports whether the job is still running.
func (j *Job) Running() bool {
	select {
	case <-j.done:
		return false
	default:
		return true
	}
}

// Outcome is how the job ended; valid once Done is closed.
func (j *Job) Outcome() Outcome {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.outcome
}

func (j *Job) finish(o Outcome) {
	j.mu.Lock()
	j.outcome = o
	j.mu.Unlock()
	j.log.close()
	close(j.done)
}

// Read returns the job's state and the output written since the previous
// read, at most max bytes of it (head and tail when there is more). With a
// filter only the matching lines are returned; while the job runs a line
// still being written is left for the next read, so a match is never cut.
func (j *Job) Read(filter *regexp.Regexp, max int) (Snapshot, error) {
	j.readMu.Lock()
	defer j.readMu.Unlock()
	// State first, size second: if the job has ended, every byte it wrote
	// is already counted.
	running := j.Running()
	written, dropped := j.log.size()
	s := Snapshot{Running: running, Dropped: dropped}
	if !running {
		s.Outcome = j.Outcome()
	}
	start, end := j.offset, written
	if end <= start {
		return s, nil
	}
	f, err := os.Open(j.LogPath)
	if err != nil {
		return s, fmt.Errorf("cannot read the log of %s: %w", j.ID, err)
	}
	defer f.Close()
	if filter == nil {
		s.Output, err = readSpan(f, start, end, max, j.LogPath)
		if err != nil {
			return s, err
		}
		j.offset, s.NewBytes = end, end-start
		return s, nil
	}
	out, matched, consumed, err := filterSpan(f, start, end, filter, max, !running)
	if err != nil {
		return s, err
	}
	s.Output, s.Matched, s.NewBytes = out, matched, consumed
	j.offset = start + consumed
	return s, nil
}

// readSpan reads [start, end) of f, or its head and tail when it is longer
// than max, without loading the middle.
func readSpan(f *os.File, start, end int64, max int, path string) (string, error) {
	if end-start <= int64(max) {
		buf := make([]byte, end-start)
		_, err := f.ReadAt(buf, start)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return string(buf), nil
	}
	headN := max * 2 / 5
	tailN := max - headN
	head := make([]byte, headN)
	tail := make([]byte, tailN)
	if _, err := f.ReadAt(head, start); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if _, err := f.ReadAt(tail, end-int64(tailN)); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	omitted := end - start - int64(len(head)) - int64(len(tail))
	var b bytes.Buffer
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "… [%d bytes omitted; the whole log is %s, or pass a filter] …\n", omitted, path)
	b.Write(tail)
	return b.String(), nil
}

// filterSpan returns the lines of [start, end) that match re (their head
// and tail if they exceed max), how many matched, and how many bytes were
// consumed: everything when final, else up to the last complete line.
func filterSpan(f *os.File, start, end int64, re *regexp.Regexp, max int, final bool) (string, int, int64, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), 64<<10)
	kept := NewCapture(max)
	var consumed int64
	matched := 0
	var line []byte
	for {
		line = line[:0]
		n, complete, err := readLineCapped(br, &line)
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return kept.String(), matched, consumed, nil
			}
			return "", 0, 0, err
		}
		if !complete && !final {
			return kept.String(), matched, consumed, nil
		}
		consumed += int64(n)
		if re.Match(line) {
			matched++
			kept.Write(line)
			kept.Write([]byte{'\n'})
		}
	}
}

// readLineCapped reads one line into *line (without its newline, at most
// maxLineBytes of it), and reports the bytes consumed and whether the line
// was complete (ended by a newline).
func readLineCapped(br *bufio.Reader, line *[]byte) (int, bool, error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if room := maxLineBytes - len(*line); room > 0 {
			*line = append(*line, body[:min(room, len(body))]...)
		}
		switch {
		case err == nil:
			return n, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return n, false, err
		}
	}
}
