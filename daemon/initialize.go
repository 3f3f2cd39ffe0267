package daemon

import (
	"context"
	"fmt"
	"net/url"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// initialize opens the session: it checks the folders and settings and
// fixes the tools' environment for the life of the connection. A rejected
// initialize changes nothing, so the client may correct it and send it
// again.
func (s *server) initialize(_ context.Context, p *protocol.InitializeParams) (protocol.InitializeResult, error) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state != stateNew {
		return protocol.InitializeResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received; it is sent once per connection")
	}
	env, err := s.newEnv(*p)
	if err != nil {
		return protocol.InitializeResult{}, err
	}
	inFlight := env.Settings.MaxCallsInFlight
	s.mu.Lock()
	s.env, s.state = env, stateRunning
	s.slots.max = inFlight // no call runs yet: every one before initialize was refused
	s.mu.Unlock()
	s.logger.Info("initialized", "client", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version,
		"folders", len(p.WorkspaceFolders), "mode", env.Mode(), "rg", env.Settings.RgPath)
	if s.listenApprovals && p.Capabilities.Approval {
		name := p.ClientInfo.Name
		if name == "" {
			name = "the editor"
		}
		s.serveApprovals(env.Workspace.Primary(), name)
	}
	return protocol.InitializeResult{
		ServerInfo: protocol.ServerInfo{Name: "tether", Version: s.version},
		Tools:      s.reg.Offered(env),
	}, nil
}

// newEnv checks the folders and the settings first, and opens the
// project's stores and applies the log level last, so a rejected
// initialize leaves no trace.
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
	var wire protocol.Settings
	if p.Settings != nil {
		wire = *p.Settings
	}
	set, err := tool.NewSettings(wire)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	ws, err := tool.OpenWorkspace(paths, &set)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	if set.RgErr != nil {
		s.logger.Warn("grep and glob will not work until ripgrep is available", "err", set.RgErr)
	}
	st, err := tool.OpenStores(ws, &set, s.logger, true)
	if err != nil {
		ws.Close()
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	if set.LogLevel != "" {
		_ = s.log.SetLevel(set.LogLevel) // checked by NewSettings
	}
	s.stores, s.undo = st, st.Undo
	return tool.NewEnv(tool.EnvConfig{
		Workspace:    ws,
		Host:         &host{conn: s, caps: p.Capabilities, log: s.logger},
		Log:          s.logger,
		Capabilities: p.Capabilities,
		Settings:     set,
		Stores:       st,
		Editor:       true,
	}), nil
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
