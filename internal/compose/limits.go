package compose

import (
	"fmt"
	"time"

	"github.com/tether-dev/tether/internal/tool"
)

// Defaults of the limits a program runs under. Memory, time and the
// number of tool calls can be changed in the settings (composeMemoryBytes,
// composeTimeout, composeMaxCalls), whose defaults the settings declare;
// the others are fixed.
const (
	DefaultSourceBytes = 64 << 10
	DefaultMemoryBytes = tool.DefaultComposeMemoryBytes
	DefaultTimeout     = tool.DefaultComposeTimeout
	DefaultMaxCalls    = tool.DefaultComposeMaxCalls
	// DefaultMaxSteps bounds the loop iterations and function calls of a
	// program: far more than any sensible program takes, and reached by a
	// busy loop in a second or two, long before the time limit.
	DefaultMaxSteps    = 5_000_000
	MaxConcurrentCalls = 8
	MaxLogLines        = 200
	// MaxLogLineBytes cuts one very long log line; the whole output is
	// capped against the call's budget as well.
	MaxLogLineBytes = 2000
	// minMemoryBytes is the least memory a program can be given: the
	// engine and the prelude need about a megabyte before the program
	// starts.
	minMemoryBytes = 4 << 20
)

// The names the limits are reported by.
const (
	LimitSource      = "source size"
	LimitMemory      = "memory"
	LimitTime        = "time"
	LimitCalls       = "tool calls"
	LimitConcurrency = "concurrent tool calls"
	LimitLogs        = "log lines"
	LimitStack       = "stack depth"
	LimitOutput      = "returned value"
	LimitSteps       = "evaluation steps"
)

// Limits bound one program.
type Limits struct {
	SourceBytes int
	MemoryBytes int
	Timeout     time.Duration
	MaxCalls    int
	Concurrency int
	LogLines    int
	// MaxSteps bounds the evaluation steps: loop iterations and function
	// calls of the program.
	MaxSteps int
}

// LimitsFor applies the defaults to what the settings change.
func LimitsFor(s *tool.Settings) Limits {
	l := Limits{
		SourceBytes: DefaultSourceBytes,
		MemoryBytes: DefaultMemoryBytes,
		Timeout:     DefaultTimeout,
		MaxCalls:    DefaultMaxCalls,
		Concurrency: MaxConcurrentCalls,
		LogLines:    MaxLogLines,
		MaxSteps:    DefaultMaxSteps,
	}
	if s == nil {
		return l
	}
	if c := s.Compose; c.MemoryBytes > 0 {
		l.MemoryBytes = max(c.MemoryBytes, minMemoryBytes)
	}
	if s.Compose.Timeout > 0 {
		l.Timeout = s.Compose.Timeout
	}
	if s.Compose.MaxCalls > 0 {
		l.MaxCalls = s.Compose.MaxCalls
	}
	if s.Compose.MaxSteps > 0 {
		l.MaxSteps = s.Compose.MaxSteps
	}
	return l
}

// withDefaults fills in the limits left zero.
func (l Limits) withDefaults() Limits {
	d := LimitsFor(nil)
	if l.SourceBytes <= 0 {
		l.SourceBytes = d.SourceBytes
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = d.MaxCalls
	}
	if l.Concurrency <= 0 {
		l.Concurrency = d.Concurrency
	}
	if l.LogLines <= 0 {
		l.LogLines = d.LogLines
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = d.MaxSteps
	}
	return l
}

// LimitError is a program stopped by one of its limits. A program cannot
// catch its way past one: the run ends with this error whatever the
// program did after it.
type LimitError struct {
	// Limit is the limit's name (LimitMemory, LimitTime, ...).
	Limit string
	// Detail says what the limit was and, where it helps, what to do.
	Detail string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the program hit its %s limit: %s", e.Limit, e.Detail)
}

// ProgramError is an exception the program did not catch.
type ProgramError struct {
	Name, Message string
	// Line and Column locate it in the program as written (0: unknown).
	Line, Column int
}

func (e *ProgramError) Error() string {
	s := e.Message
	if e.Name != "" {
		s = e.Name + ": " + s
	}
	if e.Line > 0 {
		s = fmt.Sprintf("line %d:%d: %s", e.Line, e.Column, s)
	}
	return s
}
