package tooltest

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/undo"
)

// EverySetting gives every field of protocol.Settings a value that is
// valid and differs from its default, so that a test of a front end can
// see each one reach the tools' environment. rg is any executable file
// but the ripgrep on PATH, for rgPath. A setting added to protocol.Settings
// must be given a value here: internal/tool's tests fail until it is.
func EverySetting(rg string) protocol.Settings {
	return protocol.Settings{
		PermissionMode:      protocol.ModeAcceptEdits,
		RgPath:              rg,
		LogLevel:            "debug",
		TokenBudget:         12345,
		UndoKeep:            7,
		ShellTimeout:        33,
		DiagnosticsSettleMs: 1500,
		AgentMaxTurns:       4,
		MemoryMaxBytes:      4096,
		WebAllowedHosts:     []string{"docs.example.com"},
		WebPrivateHosts:     []string{"127.0.0.1"},
		WebSearchEndpoint:   "http://127.0.0.1:9/search",
		WebTimeout:          7,
		WebMaxBytes:         1 << 20,
		BraveAPIKey:         "brave-key",
		ComposeTimeout:      9,
		ComposeMemoryBytes:  32 << 20,
		ComposeMaxCalls:     3,
		MaxCallsInFlight:    5,
		WriteRoots:          []string{filepath.Dir(rg)},
		ShellSandbox:        "landlock",
		ShellWritablePaths:  []string{"/var/cache/tether-test"},
	}
}

// CheckEnv fails t unless env is what every front end makes of the
// settings p: the tools' Settings as NewSettings makes them, an undo store
// that keeps as many checkpoints as p asks, a web client configured by p,
// and the marks of what each request read from outside.
func CheckEnv(t testing.TB, env *tool.Env, p protocol.Settings) {
	t.Helper()
	want, err := tool.NewSettings(p)
	if err != nil {
		t.Fatalf("the settings themselves are refused: %v", err)
	}
	got := env.Settings
	if (got.RgErr == nil) != (want.RgErr == nil) {
		t.Errorf("ripgrep: the env has %q (%v), want %q (%v)", got.RgPath, got.RgErr, want.RgPath, want.RgErr)
	}
	got.RgErr, want.RgErr = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the env's settings are\n%+v\nwant what NewSettings makes of the same settings:\n%+v", got, want)
	}
	if got := env.Workspace.WriteRoots(); !slices.Equal(got, want.WriteRoots) {
		t.Errorf("the workspace's write roots are %q, want %q", got, want.WriteRoots)
	}
	if cfg := env.Web().Config(); !reflect.DeepEqual(*cfg, want.Web) {
		t.Errorf("the web client is configured by %+v, want %+v", *cfg, want.Web)
	}
	switch u, ok := env.Checkpoints.(*undo.Store); {
	case !ok:
		t.Errorf("the env has no undo store but %T", env.Checkpoints)
	case u.Keep() != want.UndoKeep:
		t.Errorf("undo keeps %d checkpoints, want %d", u.Keep(), want.UndoKeep)
	}
	if env.Requests == nil {
		t.Error("the env keeps no marks of what its requests read from outside")
	}
}
