package tool_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
)

// jsonNames lists protocol.Settings' fields by their JSON names, in order.
func jsonNames(t *testing.T) []string {
	t.Helper()
	typ := reflect.TypeFor[protocol.Settings]()
	names := make([]string, typ.NumField())
	for i := range names {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			t.Fatalf("protocol.Settings.%s has no JSON name", typ.Field(i).Name)
		}
		names[i] = tag
	}
	return names
}

// Every setting the wire carries is declared once, in its order: a field
// added to protocol.Settings without its place in the list fails here.
func TestSettingListIsProtocolSettings(t *testing.T) {
	var listed []string
	for _, s := range tool.SettingList() {
		listed = append(listed, s.Name)
		if s.Default == "" {
			t.Errorf("%s states no default", s.Name)
		}
	}
	if want := jsonNames(t); !reflect.DeepEqual(listed, want) {
		t.Errorf("the setting list is\n%v\nprotocol.Settings has\n%v", listed, want)
	}
}

// numeric reads each setting whose default is a number back out of
// Settings, in the unit protocol.Settings gives it.
var numeric = map[string]func(s tool.Settings) int{
	"tokenBudget":         func(s tool.Settings) int { return s.TokenBudget },
	"undoKeep":            func(s tool.Settings) int { return s.UndoKeep },
	"shellTimeout":        func(s tool.Settings) int { return int(s.ShellTimeout / time.Second) },
	"diagnosticsSettleMs": func(s tool.Settings) int { return int(s.SettleTime / time.Millisecond) },
	"agentMaxTurns":       func(s tool.Settings) int { return s.AgentMaxTurns },
	"memoryMaxBytes":      func(s tool.Settings) int { return s.MemoryMaxBytes },
	"webTimeout":          func(s tool.Settings) int { return int(s.Web.FetchTimeout() / time.Second) },
	"webMaxBytes":         func(s tool.Settings) int { return int(s.Web.BodyCap()) },
	"composeTimeout":      func(s tool.Settings) int { return int(s.Compose.Timeout / time.Second) },
	"composeMemoryBytes":  func(s tool.Settings) int { return s.Compose.MemoryBytes },
	"composeMaxCalls":     func(s tool.Settings) int { return s.Compose.MaxCalls },
	"maxCallsInFlight":    func(s tool.Settings) int { return s.MaxCallsInFlight },
}

// The default each setting states (which docs/settings.md prints) is the
// one NewSettings puts in force.
func TestNewSettingsPutsTheStatedDefaultsInForce(t *testing.T) {
	d := tool.DefaultSettings()
	words := map[string]string{
		"permissionMode": string(d.Mode),
		"logLevel":       tool.DefaultLogLevel, // the front end's logger applies it
	}
	for _, s := range tool.SettingList() {
		if read, ok := numeric[s.Name]; ok {
			if got := strconv.Itoa(read(d)); got != s.Default {
				t.Errorf("%s: the stated default is %s, NewSettings applies %s", s.Name, s.Default, got)
			}
			continue
		}
		if w, ok := words[s.Name]; ok && w != s.Default {
			t.Errorf("%s: the stated default is %q, NewSettings applies %q", s.Name, s.Default, w)
		}
	}
	if d.Web.Allowed.Match("example.com") || d.Web.BraveAPIKey != "" || d.Web.Engine() != "DuckDuckGo" {
		t.Errorf("the web settings' defaults are not none and DuckDuckGo: %+v", d.Web)
	}
}

// Each field's value reaches Settings: dropping any one of them from a
// set that gives them all changes what NewSettings makes.
func TestNewSettingsTakesEveryField(t *testing.T) {
	exe, err := os.Executable() // an executable that is not the rg on PATH
	if err != nil {
		t.Fatal(err)
	}
	every := tooltest.EverySetting(exe)
	all, err := tool.NewSettings(every)
	if err != nil {
		t.Fatal(err)
	}
	if all.RgPath != exe || all.RgErr != nil {
		t.Fatalf("rgPath %s: got %q (%v)", exe, all.RgPath, all.RgErr)
	}
	v := reflect.ValueOf(every)
	for i, name := range jsonNames(t) {
		if v.Field(i).IsZero() {
			t.Errorf("tooltest.EverySetting gives %s no value", name)
			continue
		}
		p := every
		reflect.ValueOf(&p).Elem().Field(i).SetZero()
		without, err := tool.NewSettings(p)
		if err != nil {
			t.Fatalf("without %s: %v", name, err)
		}
		without.RgErr, all.RgErr = nil, nil
		if reflect.DeepEqual(without, all) {
			t.Errorf("%s makes no difference to the settings", name)
		}
	}
}

// missingDir is an absolute path to no folder, on any system.
var missingDir = filepath.Join(os.TempDir(), "tether-test-no-such-folder", "here")

// A malformed value is refused with an error that names its field, and
// no Settings.
func TestNewSettingsNamesTheFieldAtFault(t *testing.T) {
	for _, tc := range []struct {
		field string
		p     protocol.Settings
		says  string
	}{
		{"permissionMode", protocol.Settings{PermissionMode: "yolo"}, `settings.permissionMode is "yolo": use one of default, acceptEdits, plan, bypass, dryRun`},
		{"logLevel", protocol.Settings{LogLevel: "chatty"}, "debug, info, warn, error"},
		{"tokenBudget", protocol.Settings{TokenBudget: -5}, "settings.tokenBudget is -5"},
		{"undoKeep", protocol.Settings{UndoKeep: -1}, "settings.undoKeep is -1"},
		{"shellTimeout", protocol.Settings{ShellTimeout: -1}, "settings.shellTimeout is -1"},
		{"agentMaxTurns", protocol.Settings{AgentMaxTurns: -2}, "settings.agentMaxTurns is -2"},
		{"memoryMaxBytes", protocol.Settings{MemoryMaxBytes: 10}, "settings.memoryMaxBytes is 10: it must be between"},
		{"webAllowedHosts", protocol.Settings{WebAllowedHosts: []string{"https://docs.example/"}}, `settings.webAllowedHosts: "https://docs.example/"`},
		{"webPrivateHosts", protocol.Settings{WebPrivateHosts: []string{"10.0.0.0/99"}}, `settings.webPrivateHosts: "10.0.0.0/99"`},
		{"webSearchEndpoint", protocol.Settings{WebSearchEndpoint: "ftp://x"}, "settings.webSearchEndpoint"},
		{"webTimeout", protocol.Settings{WebTimeout: -1}, "settings.webTimeout"},
		{"webMaxBytes", protocol.Settings{WebMaxBytes: -1}, "settings.webMaxBytes"},
		{"composeTimeout", protocol.Settings{ComposeTimeout: -1}, "settings.composeTimeout is -1"},
		{"composeMemoryBytes", protocol.Settings{ComposeMemoryBytes: -1}, "settings.composeMemoryBytes is -1"},
		{"composeMaxCalls", protocol.Settings{ComposeMaxCalls: -2}, "settings.composeMaxCalls is -2"},
		{"maxCallsInFlight", protocol.Settings{MaxCallsInFlight: tool.MaxCallsInFlightLimit + 1}, "settings.maxCallsInFlight is 1025"},
		{"writeRoots", protocol.Settings{WriteRoots: []string{"sibling/repo"}}, `settings.writeRoots: "sibling/repo" is not an absolute path`},
		{"writeRoots", protocol.Settings{WriteRoots: []string{missingDir}}, "settings.writeRoots: " + strconv.Quote(missingDir) + " cannot be used"},
	} {
		s, err := tool.NewSettings(tc.p)
		var se *tool.SettingError
		if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: error %v, want a SettingError for %s saying %q", tc.field, err, tc.field, tc.says)
		}
		if !reflect.DeepEqual(s, tool.Settings{}) {
			t.Errorf("%s: a refused setting still made %+v", tc.field, s)
		}
	}
}
