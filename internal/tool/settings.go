package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/web/ddg"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/undo"
)

// Defaults of the settings whose owner stands above this package (compose
// programs, the daemon), so that NewSettings can apply them and the
// settings reference can state them.
const (
	DefaultComposeTimeout     = 60 * time.Second
	DefaultComposeMemoryBytes = 64 << 20
	DefaultComposeMaxCalls    = 200

	// DefaultMaxCallsInFlight is how many calls the daemon runs at once
	// when the settings name no other.
	DefaultMaxCallsInFlight = 16
	// MaxCallsInFlightLimit is the most maxCallsInFlight may ask for.
	MaxCallsInFlightLimit = 1024
)

// DefaultLogLevel is the log level when neither the settings nor the
// environment name one.
const DefaultLogLevel = "info"

// SettingError is a setting whose value cannot be used. Field is its name
// in protocol.Settings; Value, when set, is the value given.
type SettingError struct {
	Field  string
	Value  any
	Reason string
}

func (e *SettingError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("settings.%s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("settings.%s is %s: %s", e.Field, ShowValue(e.Value), e.Reason)
}

// ShowValue writes a setting's value as a message quotes it: strings in
// quotes, numbers as they are.
func ShowValue(v any) string {
	if r := reflect.ValueOf(v); r.Kind() == reflect.String {
		return strconv.Quote(r.String())
	}
	return fmt.Sprint(v)
}

// Setting is one field of protocol.Settings as Tether takes it: its name on
// the wire, its default, and how a value given is checked and put into
// Settings. NewSettings applies the list in order and the settings
// reference (docs/settings.md) is generated from it, so a new setting is
// declared in protocol.Settings and here, and nowhere else.
type Setting struct {
	// Name is the field's JSON name.
	Name string
	// Default is the value in force when the field is absent, as the
	// reference states it: a number in the field's own unit, or words.
	Default string
	// Bounds, when set, says which values are taken, as the check does.
	Bounds string
	// apply checks the field's value in p and puts it into s, its default
	// when absent. An error is the reason the value cannot be used.
	apply func(p *protocol.Settings, s *Settings) error
}

// SettingList lists every setting, in the order of protocol.Settings.
func SettingList() []Setting { return append([]Setting(nil), settingList...) }

var settingList = []Setting{
	{Name: "permissionMode", Default: string(protocol.ModeDefault), apply: func(p *protocol.Settings, s *Settings) error {
		s.Mode = p.PermissionMode
		if s.Mode == "" {
			s.Mode = protocol.ModeDefault
		}
		if !permission.ValidMode(s.Mode) {
			return valueError(p.PermissionMode, "use one of "+permission.ModeNames())
		}
		return nil
	}},
	{Name: "rgPath", Default: "`rg` on `PATH`", apply: func(p *protocol.Settings, s *Settings) error {
		// A ripgrep that is not there leaves grep and glob to say so when
		// called: the front end decides whether to stop (see RgErr).
		s.RgPath, s.RgErr = search.LookRg(p.RgPath)
		return nil
	}},
	{Name: "logLevel", Default: DefaultLogLevel, apply: func(p *protocol.Settings, s *Settings) error {
		if p.LogLevel == "" {
			return nil // the environment's, else DefaultLogLevel: the front end's logger knows
		}
		if _, err := logging.ParseLevel(p.LogLevel); err != nil {
			return errors.New(err.Error())
		}
		s.LogLevel = p.LogLevel
		return nil
	}},
	{Name: "tokenBudget", Default: strconv.Itoa(DefaultTokenBudget), apply: func(p *protocol.Settings, s *Settings) error {
		s.TokenBudget = orDefault(p.TokenBudget, DefaultTokenBudget)
		return positive(p.TokenBudget, "a positive number of tokens")
	}},
	{Name: "undoKeep", Default: strconv.Itoa(undo.DefaultKeep), apply: func(p *protocol.Settings, s *Settings) error {
		s.UndoKeep = orDefault(p.UndoKeep, undo.DefaultKeep)
		return positive(p.UndoKeep, "a positive number of checkpoints")
	}},
	{Name: "shellTimeout", Default: seconds(shell.DefaultTimeout), apply: func(p *protocol.Settings, s *Settings) error {
		s.ShellTimeout = time.Duration(orDefault(p.ShellTimeout, int(shell.DefaultTimeout/time.Second))) * time.Second
		return positive(p.ShellTimeout, "a positive number of seconds")
	}},
	{Name: "diagnosticsSettleMs", Default: strconv.Itoa(int(DefaultSettleTime / time.Millisecond)), apply: func(p *protocol.Settings, s *Settings) error {
		switch ms := p.DiagnosticsSettleMs; {
		case ms < 0:
			s.SettleTime = -1
		case ms > 0:
			s.SettleTime = time.Duration(ms) * time.Millisecond
		default:
			s.SettleTime = DefaultSettleTime
		}
		return nil
	}},
	{Name: "agentMaxTurns", Default: strconv.Itoa(DefaultAgentMaxTurns), apply: func(p *protocol.Settings, s *Settings) error {
		s.AgentMaxTurns = orDefault(p.AgentMaxTurns, DefaultAgentMaxTurns)
		return positive(p.AgentMaxTurns, "a positive number of model turns")
	}},
	{Name: "memoryMaxBytes", Default: strconv.Itoa(memory.DefaultMaxBytes), Bounds: fmt.Sprintf("%d to %d", memory.MinMaxBytes, memory.MaxMaxBytes), apply: func(p *protocol.Settings, s *Settings) error {
		s.MemoryMaxBytes = orDefault(p.MemoryMaxBytes, memory.DefaultMaxBytes)
		if m := p.MemoryMaxBytes; m != 0 && (m < memory.MinMaxBytes || m > memory.MaxMaxBytes) {
			return valueError(m, fmt.Sprintf("it must be between %d and %d bytes, or absent for the default (%d)", memory.MinMaxBytes, memory.MaxMaxBytes, memory.DefaultMaxBytes))
		}
		return nil
	}},
	// The web settings are checked together, by web.NewConfig, which
	// names the field at fault; they are applied with the first.
	{Name: "webAllowedHosts", Default: "none", apply: func(p *protocol.Settings, s *Settings) error {
		cfg, err := web.NewConfig(web.FromProtocol(*p))
		var fe *web.FieldError
		if errors.As(err, &fe) {
			return &SettingError{Field: fe.Field, Reason: fe.Err.Error()}
		}
		s.Web = cfg
		return err
	}},
	{Name: "webPrivateHosts", Default: "none", apply: appliedWith},
	{Name: "webSearchEndpoint", Default: "DuckDuckGo's HTML endpoint (" + ddg.Endpoint + ")", apply: appliedWith},
	{Name: "webTimeout", Default: seconds(web.DefaultTimeout), apply: appliedWith},
	{Name: "webMaxBytes", Default: strconv.Itoa(web.DefaultMaxBytes), Bounds: fmt.Sprintf("at most %d", web.MaxMaxBytes), apply: appliedWith},
	{Name: "braveApiKey", Default: "none", apply: appliedWith},
	{Name: "composeTimeout", Default: seconds(DefaultComposeTimeout), apply: func(p *protocol.Settings, s *Settings) error {
		s.Compose.Timeout = time.Duration(orDefault(p.ComposeTimeout, int(DefaultComposeTimeout/time.Second))) * time.Second
		return positive(p.ComposeTimeout, "a positive number of seconds")
	}},
	{Name: "composeMemoryBytes", Default: strconv.Itoa(DefaultComposeMemoryBytes), apply: func(p *protocol.Settings, s *Settings) error {
		s.Compose.MemoryBytes = orDefault(p.ComposeMemoryBytes, DefaultComposeMemoryBytes)
		return positive(p.ComposeMemoryBytes, "a positive number of bytes")
	}},
	{Name: "composeMaxCalls", Default: strconv.Itoa(DefaultComposeMaxCalls), apply: func(p *protocol.Settings, s *Settings) error {
		s.Compose.MaxCalls = orDefault(p.ComposeMaxCalls, DefaultComposeMaxCalls)
		return positive(p.ComposeMaxCalls, "a positive number of calls")
	}},
	{Name: "maxCallsInFlight", Default: strconv.Itoa(DefaultMaxCallsInFlight), Bounds: fmt.Sprintf("1 to %d", MaxCallsInFlightLimit), apply: func(p *protocol.Settings, s *Settings) error {
		s.MaxCallsInFlight = orDefault(p.MaxCallsInFlight, DefaultMaxCallsInFlight)
		if n := p.MaxCallsInFlight; n < 0 || n > MaxCallsInFlightLimit {
			return valueError(n, fmt.Sprintf("it must be between 1 and %d, or absent for the default (%d)", MaxCallsInFlightLimit, DefaultMaxCallsInFlight))
		}
		return nil
	}},
	{Name: "writeRoots", Default: "none", apply: func(p *protocol.Settings, s *Settings) error {
		for _, root := range p.WriteRoots {
			real, err := writeRoot(root)
			if err != nil {
				return err
			}
			s.WriteRoots = append(s.WriteRoots, real)
		}
		return nil
	}},
	{Name: "shellSandbox", Default: sandbox.SettingAuto, apply: func(p *protocol.Settings, s *Settings) error {
		s.Sandbox.Mode = p.ShellSandbox
		if !sandbox.ValidSetting(p.ShellSandbox) {
			return valueError(p.ShellSandbox, "use one of "+strings.Join(sandbox.Settings, ", "))
		}
		return nil
	}},
	{Name: "shellWritablePaths", Default: "none: the built-in cache paths only", apply: func(p *protocol.Settings, s *Settings) error {
		s.Sandbox.Writable = p.ShellWritablePaths
		for _, path := range p.ShellWritablePaths {
			if !filepath.IsAbs(path) {
				return valueError(path, "each path must be absolute")
			}
		}
		return nil
	}},
}

// writeRoot checks one entry of writeRoots and gives its real path.
func writeRoot(root string) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("%q is not an absolute path; give each folder in full", root)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("%q cannot be used: %v", root, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%q is not a folder", root)
	}
	return real, nil
}

// NewSettings turns the settings a client sends (initialize's settings, or
// the command line's flags) into the tools' Settings: every absent field
// takes its default and every given one is checked. A value that cannot be
// used is a *SettingError that names its field; nothing else is changed by
// a rejected call. A ripgrep that cannot be found is not an error here
// (see Settings.RgErr).
func NewSettings(p protocol.Settings) (Settings, error) {
	var s Settings
	for _, f := range settingList {
		err := f.apply(&p, &s)
		var se *SettingError
		var ve *valueErr
		switch {
		case err == nil:
		case errors.As(err, &se):
			return Settings{}, se
		case errors.As(err, &ve):
			return Settings{}, &SettingError{Field: f.Name, Value: ve.value, Reason: ve.reason}
		default:
			return Settings{}, &SettingError{Field: f.Name, Reason: err.Error()}
		}
	}
	return s, nil
}

// DefaultSettings are the settings of a client that sends none.
func DefaultSettings() Settings {
	s, err := NewSettings(protocol.Settings{})
	if err != nil {
		panic(err) // a default that its own check refuses is a bug
	}
	return s
}

// appliedWith marks a setting checked and applied together with the one
// before it.
func appliedWith(*protocol.Settings, *Settings) error { return nil }

// valueErr is a setting's value that cannot be used, and why.
type valueErr struct {
	value  any
	reason string
}

func (e *valueErr) Error() string { return e.reason }

func valueError(v any, reason string) error { return &valueErr{v, reason} }

// positive refuses a negative count: zero (absent) takes the default.
func positive(n int, what string) error {
	if n < 0 {
		return valueError(n, "it must be "+what+", or absent for the default")
	}
	return nil
}

func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

func seconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
