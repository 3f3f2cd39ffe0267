package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/protocol"
)

// settingFlags names the flags of tether call and tether mcp that set one
// setting each, by the setting's name in protocol.Settings.
var settingFlags = map[string]string{
	"permissionMode":     "mode",
	"rgPath":             "rg",
	"tokenBudget":        "budget",
	"webAllowedHosts":    "web-allow",
	"webPrivateHosts":    "web-private",
	"webSearchEndpoint":  "web-search-endpoint",
	"webTimeout":         "web-timeout",
	"webMaxBytes":        "web-max-bytes",
	"writeRoots":         "write-root",
	"shellSandbox":       "sandbox",
	"shellWritablePaths": "writable",
}

// envBraveKey names the environment variable with the Brave Search API key
// (an environment variable, so the key does not show in the process list).
const envBraveKey = "TETHER_BRAVE_API_KEY"

// settingsFlags binds the flags that set settings to fields of p, which
// is what the editor would send in initialize: --settings for the whole
// object, and a flag of its own for the settings used most. A flag given
// later on the command line overrides what an earlier one set. call adds
// --budget and the --web-* flags of tether call, which tether mcp leaves
// to --settings.
func settingsFlags(fs *flag.FlagSet, p *protocol.Settings, call bool) {
	p.PermissionMode = protocol.ModeDefault
	p.BraveAPIKey = os.Getenv(envBraveKey)
	fs.Var(settingsJSON{p}, "settings", "settings `JSON` as the editor sends them in initialize, or @FILE holding it (every setting: docs/settings.md); flags after it override it")
	fs.StringVar((*string)(&p.PermissionMode), "mode", string(protocol.ModeDefault), "permission `MODE`: "+permission.ModeNames())
	fs.StringVar(&p.RgPath, "rg", "", "ripgrep binary `PATH` (default: rg on PATH)")
	fs.Var((*stringList)(&p.WriteRoots), "write-root", "`DIR` outside the workspace that file changes may reach, confined like a workspace folder (repeatable)")
	fs.StringVar(&p.ShellSandbox, "sandbox", "", "how shell commands are confined: `MODE` "+strings.Join(sandbox.Settings, ", ")+" (default auto: the strongest level this machine passes; see tether doctor)")
	fs.Var((*stringList)(&p.ShellWritablePaths), "writable", "a `PATH` outside the workspace that sandboxed commands may write, beside the build caches (repeatable)")
	if !call {
		return
	}
	fs.IntVar(&p.TokenBudget, "budget", 0, fmt.Sprintf("output budget per call, in `tokens` (default %d)", tool.DefaultTokenBudget))
	fs.Var((*stringList)(&p.WebAllowedHosts), "web-allow", "`HOST` web_fetch reaches without asking: example.com, or *.example.com for its subdomains (repeatable)")
	fs.Var((*stringList)(&p.WebPrivateHosts), "web-private", "`HOST` or CIDR on loopback or a private network that web requests may reach, fetched over http as given (repeatable)")
	fs.StringVar(&p.WebSearchEndpoint, "web-search-endpoint", "", "`URL` of the HTML search endpoint (default DuckDuckGo's; "+envBraveKey+" selects the Brave Search API)")
	fs.IntVar(&p.WebTimeout, "web-timeout", 0, fmt.Sprintf("time limit of one fetch or search, in `seconds` (default %d)", int(web.DefaultTimeout/time.Second)))
	fs.IntVar(&p.WebMaxBytes, "web-max-bytes", 0, fmt.Sprintf("most `bytes` read of one response (default %d)", web.DefaultMaxBytes))
}

// settingsJSON is the --settings flag: a settings object decoded over the
// fields it names. Unlike initialize, which ignores a field it does not
// know, it refuses one: on a command line that is a typo.
type settingsJSON struct{ p *protocol.Settings }

func (f settingsJSON) String() string { return "" }

func (f settingsJSON) Set(v string) error {
	raw := []byte(v)
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		raw = b
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f.p); err != nil {
		return fmt.Errorf("not a settings object such as {\"composeTimeout\": 30}: %v", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value; give one settings object")
	}
	return nil
}

// checkSettings makes the tools' settings from p, as the daemon does from
// initialize's; an error names the flag that gave the value, or the
// setting when --settings did. A ripgrep named but not found is an error
// here; none on PATH only leaves grep and glob to say so.
func checkSettings(fs *flag.FlagSet, p protocol.Settings) (tool.Settings, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	// byFlag is the flag that gave a setting its value, if a flag did.
	byFlag := func(field string) (string, bool) {
		f := settingFlags[field]
		return "--" + f, given[f]
	}
	set, err := tool.NewSettings(p)
	var se *tool.SettingError
	if errors.As(err, &se) {
		name, ok := byFlag(se.Field)
		switch {
		case !ok:
			return set, err
		case se.Value != nil:
			return set, fmt.Errorf("%s %s: %s", name, tool.ShowValue(se.Value), se.Reason)
		}
		return set, fmt.Errorf("%s: %s", name, se.Reason)
	}
	if err != nil {
		return set, err
	}
	if p.RgPath != "" && set.RgErr != nil {
		if name, ok := byFlag("rgPath"); ok {
			return set, fmt.Errorf("%s: %v", name, set.RgErr)
		}
		return set, fmt.Errorf("settings.rgPath: %v", set.RgErr)
	}
	return set, nil
}
