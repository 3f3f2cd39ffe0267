// Package logging sets up Tether's structured log: to stderr, which an
// editor shows in its output channel, and to a file under the XDG state
// folder, which survives the editor. Never to stdout: there the daemon
// speaks its protocol, and one stray line would corrupt it.
package logging

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/project"
)

// EnvLevel names the environment variable that sets the level before the
// client's initialize can.
const EnvLevel = "TETHER_LOG_LEVEL"

// fileRelPath is the log file, relative to $XDG_STATE_HOME.
const fileRelPath = "tether/log/tether.log"

// rotateBytes is the size past which the log file is moved aside (to
// tether.log.1) when the daemon starts, so the file never grows without
// bound across months of editor sessions.
const rotateBytes = 8 << 20

// Levels lists the level names the settings accept.
var Levels = []string{"debug", "info", "warn", "error"}

// Log is a logger whose level can be changed while it is in use.
type Log struct {
	logger *slog.Logger
	level  *slog.LevelVar
	file   *os.File
}

// Open makes the daemon's log: stderr plus the XDG log file, at the level
// from TETHER_LOG_LEVEL (info when unset). It never fails: a log file that
// cannot be opened, or a bad level name, is reported on stderr and the log
// carries on without it.
func Open(stderr io.Writer) *Log {
	return open(stderr, slog.LevelDebug)
}

// OpenQuiet is Open for a process whose stderr a client shows as warnings
// (an MCP client shows every stderr line so): stderr gets only records of
// stderrMin and up, unless TETHER_LOG_LEVEL asks for more; the log file
// gets every record of the level in force.
func OpenQuiet(stderr io.Writer, stderrMin slog.Level) *Log {
	if v, ok := os.LookupEnv(EnvLevel); ok && v != "" {
		stderrMin = slog.LevelDebug
	}
	return open(stderr, stderrMin)
}

func open(stderr io.Writer, stderrMin slog.Level) *Log {
	level := new(slog.LevelVar)
	envErr := setFromEnv(level)
	var file *os.File
	path, fileErr := DefaultPath()
	if fileErr == nil {
		file, fileErr = openFile(path)
	}
	handlers := []slog.Handler{slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: atLeast{level, stderrMin}})}
	if file != nil {
		handlers = append(handlers, slog.NewTextHandler(file, &slog.HandlerOptions{Level: level}))
	}
	l := &Log{logger: slog.New(slog.NewMultiHandler(handlers...)), level: level, file: file}
	if envErr != nil {
		l.logger.Warn("ignoring "+EnvLevel, "err", envErr)
	}
	if fileErr != nil {
		l.logger.Warn("logging to stderr only: the log file cannot be opened", "err", fileErr)
	}
	return l
}

// atLeast is the level in force, but never below min.
type atLeast struct {
	level *slog.LevelVar
	min   slog.Level
}

func (a atLeast) Level() slog.Level { return max(a.level.Level(), a.min) }

// New makes a log writing to w alone, at level; tests and embedders use it.
func New(w io.Writer, level slog.Level) *Log {
	lv := new(slog.LevelVar)
	lv.Set(level)
	return &Log{logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv})), level: lv}
}

// Discard makes a log that drops everything.
func Discard() *Log { return New(io.Discard, slog.LevelError+1) }

// Logger is the slog logger to log with.
func (l *Log) Logger() *slog.Logger { return l.logger }

// Level is the current level.
func (l *Log) Level() slog.Level { return l.level.Level() }

// SetLevel changes the level by name (see Levels).
func (l *Log) SetLevel(name string) error {
	lv, err := ParseLevel(name)
	if err != nil {
		return err
	}
	l.level.Set(lv)
	return nil
}

// Close closes the log file, if there is one.
func (l *Log) Close() error {
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

// ParseLevel turns a level name (case-insensitive) into a slog level.
func ParseLevel(name string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q: use one of %s", name, strings.Join(Levels, ", "))
}

// DefaultPath is the log file's path, $XDG_STATE_HOME/tether/log/tether.log;
// it creates the folder.
func DefaultPath() (string, error) {
	path := filepath.Join(project.StateHome(), fileRelPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, nil
}

func setFromEnv(level *slog.LevelVar) error {
	name, ok := os.LookupEnv(EnvLevel)
	if !ok || name == "" {
		return nil
	}
	lv, err := ParseLevel(name)
	if err != nil {
		return err
	}
	level.Set(lv)
	return nil
}

// openFile opens the log for appending, first moving a large one aside.
// Logs name paths of the user's projects, so only the user may read them.
func openFile(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > rotateBytes {
		if err := os.Rename(path, path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
