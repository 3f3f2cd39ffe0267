package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"time"

	"github.com/tether-dev/tether/internal/children"
)

// outcome is how one ripgrep run ended.
type outcome struct {
	// stopped is set when the reader had enough and killed ripgrep.
	stopped bool
	// code is ripgrep's exit status when it ran to the end.
	code   int
	stderr string
}

// maxStderr bounds what is kept of ripgrep's complaints: a tree full of
// unreadable files must not grow memory without limit.
const maxStderr = 16 << 10

// waitDelay bounds how long Wait may block on pipes a stray grandchild
// holds open after ripgrep itself is gone.
const waitDelay = 2 * time.Second

// stream runs rg with args in dir and hands each output record (the bytes
// before delim, cut to maxRecord bytes) to each as soon as it is read. When
// each returns false, ripgrep's whole process group is killed and reaped
// before stream returns, so nothing outlives the call. The slice passed to
// each is only valid during the call.
//
// A cancelled ctx kills ripgrep too; stream then returns ctx.Err().
func stream(ctx context.Context, rg, dir string, args []string, delim byte, maxRecord int, each func(rec []byte) bool) (outcome, error) {
	if rg == "" {
		return outcome{}, ErrNoRipgrep
	}
	if err := ctx.Err(); err != nil {
		return outcome{}, err
	}
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	stderr := &capBuffer{max: maxStderr}
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return outcome{}, err
	}
	// Listed as this process's own child, so that the shell's sweep of
	// adopted orphans leaves it alone (see package children).
	if err := children.Start(cmd); err != nil {
		return outcome{}, startError(ctx, err)
	}
	defer children.Done(cmd.Process.Pid)

	br := bufio.NewReaderSize(out, 64<<10)
	stopped := false
	for {
		rec, err := readRecord(br, delim, maxRecord)
		if err == nil || len(rec) > 0 {
			if !each(rec) {
				stopped = true
				break
			}
		}
		if err != nil {
			break
		}
	}
	if stopped {
		killGroup(cmd)
	}
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return outcome{}, err
	}
	o := outcome{stopped: stopped, stderr: stderr.String()}
	if stopped {
		return o, nil
	}
	var exitErr *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &exitErr):
		o.code = exitErr.ExitCode()
	default:
		return o, fmt.Errorf("running ripgrep: %w", werr)
	}
	return o, nil
}

// startError tells a missing or unusable ripgrep apart from other failures
// to start it.
func startError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "chdir" {
		return fmt.Errorf("cannot enter the search folder: %w", err)
	}
	return &StartError{Err: err}
}

// StartError is ripgrep failing to start: missing, not executable, not a
// program. errors.Is(err, ErrNoRipgrep) holds for it.
type StartError struct{ Err error }

func (e *StartError) Error() string        { return fmt.Sprintf("%v: %v", ErrNoRipgrep, e.Err) }
func (e *StartError) Is(target error) bool { return target == ErrNoRipgrep }
func (e *StartError) Unwrap() error        { return e.Err }

// readRecord reads up to delim (dropped) and keeps at most limit bytes of
// the record, so one enormous line costs limit bytes of memory. It returns
// io.EOF with the last, unterminated record.
func readRecord(br *bufio.Reader, delim byte, limit int) ([]byte, error) {
	var rec []byte
	for {
		chunk, err := br.ReadSlice(delim)
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		if room := limit - len(rec); room > 0 {
			rec = append(rec, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return rec, err
	}
}

// capBuffer keeps the first max bytes written to it and drops the rest,
// always reporting success so the writer never blocks or fails.
type capBuffer struct {
	buf []byte
	max int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *capBuffer) String() string { return string(b.buf) }

var _ io.Writer = (*capBuffer)(nil)
