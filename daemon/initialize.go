package daemon

import (
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
)

// initialize opens the session: it checks the folders and settings and
// fixes the tools' environment for the life of the connection. A rejected
// initialize changes nothing, so the client may correct it and send it
// again.
func (s *server) initialize(raw json.RawMessage) (any, error) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state != stateNew {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received; it is sent once per connection")
	}
	var p protocol.InitializeParams
	if err := decodeParams(protocol.MethodInitialize, raw, &p); err != nil {
		return nil, err
	}
	env, err := s.newEnv(p)
	if err != nil {
		return nil, err
	}
	inFlight := DefaultMaxCallsInFlight
	if p.Settings != nil && p.Settings.MaxCallsInFlight > 0 {
		inFlight = p.Settings.MaxCallsInFlight
	}
	s.mu.Lock()
	s.env, s.state = env, stateRunning
	s.slots.max = inFlight // no call runs yet: every one before initialize was refused
	s.mu.Unlock()
	s.logger.Info("initialized", "client", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version,
		"folders", len(p.WorkspaceFolders), "mode", env.Mode(), "rg", env.Settings.RgPath)
	return protocol.InitializeResult{
		ServerInfo: protocol.ServerInfo{Name: "tether", Version: s.version},
		Tools:      s.reg.Offered(env),
	}, nil
}

// newEnv validates everything first and applies the log level last, so a
// rejected initialize leaves no trace.
func (s *server) newEnv(p protocol.InitializeParams) (*tool.Env, error) {
	if len(p.WorkspaceFolders) == 0 {
		return nil, invalidParams("initialize has no workspace folder: Tether works inside a folder, so open one in the editor and start again")
	}
	paths := make([]string, 0, len(p.WorkspaceFolders))
	for _, f := range p.WorkspaceFolders {
		path, err := folderPath(f.URI)
		if err != nil {
			return nil, invalidParams("workspace folder %q: %v", f.URI, err)
		}
		paths = append(paths, path)
	}
	ws, err := workspace.New(paths...)
	if err != nil {
		return nil, invalidParams("%v", err)
	}

	var set protocol.Settings
	if p.Settings != nil {
		set = *p.Settings
	}
	mode := set.PermissionMode
	if mode == "" {
		mode = protocol.ModeDefault
	}
	if !permission.ValidMode(mode) {
		return nil, invalidParams("unknown settings.permissionMode %q: use one of %s", mode, permission.ModeNames())
	}
	if set.TokenBudget < 0 {
		return nil, invalidParams("settings.tokenBudget is %d: it must be a positive number of tokens, or absent for the default", set.TokenBudget)
	}
	if set.LogLevel != "" {
		if _, err := logging.ParseLevel(set.LogLevel); err != nil {
			return nil, invalidParams("settings.logLevel: %v", err)
		}
	}

	rg, err := search.LookRg(set.RgPath)
	if err != nil {
		s.logger.Warn("grep and glob will not work until ripgrep is available", "err", err)
	}
	if set.AgentMaxTurns < 0 {
		return nil, invalidParams("settings.agentMaxTurns is %d: it must be a positive number of model turns, or absent for the default", set.AgentMaxTurns)
	}
	if n := set.MaxCallsInFlight; n < 0 || n > MaxCallsInFlightLimit {
		return nil, invalidParams("settings.maxCallsInFlight is %d: it must be between 1 and %d, or absent for the default (%d)", n, MaxCallsInFlightLimit, DefaultMaxCallsInFlight)
	}
	if set.UndoKeep < 0 || set.ShellTimeout < 0 {
		return nil, invalidParams("settings.undoKeep and settings.shellTimeout must be positive, or absent for the defaults")
	}
	if m := set.MemoryMaxBytes; m != 0 && (m < memory.MinMaxBytes || m > memory.MaxMaxBytes) {
		return nil, invalidParams("settings.memoryMaxBytes is %d: it must be between %d and %d bytes, or absent for the default (%d)", m, memory.MinMaxBytes, memory.MaxMaxBytes, memory.DefaultMaxBytes)
	}
	webCfg, err := web.NewConfig(web.FromProtocol(set))
	if err != nil {
		return nil, invalidParams("settings.%v", err)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"composeTimeout", set.ComposeTimeout}, {"composeMemoryBytes", set.ComposeMemoryBytes}, {"composeMaxCalls", set.ComposeMaxCalls}} {
		if f.v < 0 {
			return nil, invalidParams("settings.%s is %d: it must be positive, or absent for the default", f.name, f.v)
		}
	}
	if set.LogLevel != "" {
		_ = s.log.SetLevel(set.LogLevel) // validated above
	}
	env := &tool.Env{
		Workspace:    ws,
		Host:         &host{conn: s, caps: p.Capabilities, log: s.logger},
		Log:          s.logger,
		Capabilities: p.Capabilities,
		Settings: tool.Settings{Mode: mode, RgPath: rg, TokenBudget: set.TokenBudget, AgentMaxTurns: set.AgentMaxTurns, MemoryMaxBytes: set.MemoryMaxBytes, Web: webCfg,
			Compose: tool.ComposeSettings{Timeout: time.Duration(set.ComposeTimeout) * time.Second, MemoryBytes: set.ComposeMemoryBytes, MaxCalls: set.ComposeMaxCalls}},
		Results: tool.NewResults(),
	}
	if err := s.attachServices(env, set); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return env, nil
}

// folderPath turns a workspace folder's file URI into a path. uri.Filename
// panics on anything but a file URI, so the URI is checked first.
func folderPath(u uri.URI) (string, error) {
	parsed, err := url.ParseRequestURI(string(u))
	if err != nil {
		return "", fmt.Errorf("not a URI: %v", err)
	}
	if parsed.Scheme != uri.FileScheme {
		return "", fmt.Errorf("only file:// folders are supported, not %s://", parsed.Scheme)
	}
	if parsed.Host != "" && parsed.Host != "localhost" {
		return "", fmt.Errorf("folders on another host (%s) are not supported", parsed.Host)
	}
	return u.Filename(), nil
}
