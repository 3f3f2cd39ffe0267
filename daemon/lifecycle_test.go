package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/protocol"
)

func TestInitializeAnswersServerInfoAndTools(t *testing.T) {
	f := start(t)
	res := f.initialize()
	if res.ServerInfo.Name != "tether" || res.ServerInfo.Version != "test-1" {
		t.Errorf("serverInfo = %+v", res.ServerInfo)
	}
	var names []string
	for _, ti := range res.Tools {
		names = append(names, ti.Name)
	}
	if got := strings.Join(names, ","); got != "read_file,edit_file,write_file,block,count,create_file,ask_test" {
		t.Errorf("tools = %s", got)
	}
	var list protocol.ToolsListResult
	f.call(protocol.MethodToolsList, struct{}{}, &list)
	if len(list.Tools) != len(res.Tools) || string(list.Tools[0].InputSchema) != string(res.Tools[0].InputSchema) {
		t.Errorf("tools/list differs from initialize's tools")
	}
}

func TestInitializeRejectsBadParams(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	for _, tc := range []struct {
		name   string
		params func(f *fixture) any
		want   string
	}{
		{"no folder", func(f *fixture) any {
			p := f.initParams(protocol.ClientCapabilities{}, nil)
			p.WorkspaceFolders = nil
			return p
		}, "open one"},
		{"folder that does not exist", func(f *fixture) any {
			p := f.initParams(protocol.ClientCapabilities{}, nil)
			p.WorkspaceFolders[0].URI = uri.File(missing)
			return p
		}, "gone"},
		{"not a file URI", func(f *fixture) any {
			p := f.initParams(protocol.ClientCapabilities{}, nil)
			p.WorkspaceFolders[0].URI = "https://example.com/repo"
			return p
		}, "only file://"},
		{"not a URI", func(f *fixture) any {
			p := f.initParams(protocol.ClientCapabilities{}, nil)
			p.WorkspaceFolders[0].URI = "relative/path"
			return p
		}, "not a URI"},
		{"unknown permission mode", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{PermissionMode: "yolo"})
		}, "default, acceptEdits, plan, bypass, dryRun"},
		{"unknown log level", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{LogLevel: "chatty"})
		}, "debug, info, warn, error"},
		{"negative token budget", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{TokenBudget: -5})
		}, "tokenBudget"},
		{"memory cap too small", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{MemoryMaxBytes: 10})
		}, "settings.memoryMaxBytes is 10"},
		{"negative memory cap", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{MemoryMaxBytes: -1})
		}, "settings.memoryMaxBytes"},
		{"malformed allowed host", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{WebAllowedHosts: []string{"example.com", "https://docs.example/"}})
		}, `settings.webAllowedHosts: "https://docs.example/"`},
		{"wildcard over a public suffix", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{WebAllowedHosts: []string{"*.co.uk"}})
		}, `settings.webAllowedHosts: "*.co.uk" is a wildcard over the public suffix co.uk`},
		{"malformed private host", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{WebPrivateHosts: []string{"10.0.0.0/99"}})
		}, `settings.webPrivateHosts: "10.0.0.0/99"`},
		{"negative web timeout", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{WebTimeout: -1})
		}, "settings.webTimeout"},
		{"negative maxCallsInFlight", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{MaxCallsInFlight: -1})
		}, "settings.maxCallsInFlight is -1"},
		{"maxCallsInFlight over the limit", func(f *fixture) any {
			return f.initParams(protocol.ClientCapabilities{}, &protocol.Settings{MaxCallsInFlight: daemon.MaxCallsInFlightLimit + 1})
		}, "settings.maxCallsInFlight"},
		{"wrong shape", func(f *fixture) any {
			return map[string]any{"workspaceFolders": "here"}
		}, "invalid params for initialize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t)
			e := f.callErr(protocol.MethodInitialize, tc.params(f))
			if e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("error %d %q, want InvalidParams containing %q", e.Code, e.Message, tc.want)
			}
			// A rejected initialize leaves the daemon waiting for a good one.
			f.initialize()
		})
	}
}

func TestSecondInitializeIsInvalid(t *testing.T) {
	f := start(t)
	f.initialize()
	e := f.callErr(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{}, nil))
	if e.Code != jsonrpc2.InvalidRequest || !strings.Contains(e.Message, "once per connection") {
		t.Fatalf("second initialize: %d %q", e.Code, e.Message)
	}
}

func TestCallsBeforeInitializeAreRefused(t *testing.T) {
	for _, method := range []string{protocol.MethodToolsList, protocol.MethodToolsCall, protocol.MethodToolsPrepare, protocol.MethodShutdown, protocol.MethodUndoList, "no/such"} {
		t.Run(method, func(t *testing.T) {
			f := start(t)
			e := f.callErr(method, map[string]any{"name": "read_file"})
			if e.Code != jsonrpc2.ServerNotInitialized || !strings.Contains(e.Message, "send initialize") {
				t.Fatalf("%s before initialize: %d %q", method, e.Code, e.Message)
			}
		})
	}
}

func TestSettingsApply(t *testing.T) {
	f := start(t)
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true},
		&protocol.Settings{PermissionMode: protocol.ModePlan, LogLevel: "debug", RgPath: filepath.Join(f.dir, "no-rg")}), &res)
	if !strings.Contains(f.log.String(), "ripgrep") {
		t.Errorf("a missing rg was not warned about; log:\n%s", f.log.String())
	}
	// logLevel debug took effect: calls are logged at debug.
	f.tool("count", nil)
	if !strings.Contains(f.log.String(), "level=DEBUG msg=call") {
		t.Errorf("no debug line after logLevel debug; log:\n%s", f.log.String())
	}
	// plan mode refuses changes without asking.
	r := f.tool("create_file", map[string]any{"path": "x.txt", "content": "x"})
	if !r.IsError || !strings.Contains(r.Content, "plan mode") {
		t.Fatalf("create_file in plan mode: %+v", r)
	}
	if len(f.approvals) != 0 {
		t.Fatalf("plan mode asked for approval")
	}
}

func TestShutdownThenExit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := start(t)
	f.initialize()
	f.call(protocol.MethodShutdown, nil, nil)
	e := f.callErr(protocol.MethodToolsCall, map[string]any{"name": "count"})
	if e.Code != jsonrpc2.InvalidRequest || !strings.Contains(e.Message, "shutting down") {
		t.Fatalf("call after shutdown: %d %q", e.Code, e.Message)
	}
	if err := f.client.Notify(waitCtx(t), protocol.MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.serveResult(); err != nil {
		t.Fatalf("Serve after shutdown and exit = %v, want nil", err)
	}
	if f.tools.counted.Load() != 0 {
		t.Fatal("a call after shutdown ran")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	f := start(t)
	f.initialize()
	if err := f.client.Notify(waitCtx(t), protocol.MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.serveResult(); !errors.Is(err, daemon.ErrExitWithoutShutdown) {
		t.Fatalf("Serve = %v, want ErrExitWithoutShutdown", err)
	}
}

// Every way serving can end cancels the running calls and waits for them.
func TestEndingCancelsRunningCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     func(f *fixture)
		wantErr error
		replied bool // the cancelled call's reply still reaches the client
	}{
		{"stdin closes", func(f *fixture) { f.in.Close() }, nil, true},
		{"exit", func(f *fixture) { _ = f.client.Notify(context.Background(), protocol.MethodExit, nil) }, daemon.ErrExitWithoutShutdown, false},
		{"context cancelled", func(f *fixture) { f.cancel() }, context.Canceled, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := start(t)
			f.initialize()
			ctx := waitCtx(t)
			p, err := f.client.Go(ctx, "slow", protocol.MethodToolsCall, map[string]any{"name": "block", "arguments": map[string]any{"tag": "slow"}})
			if err != nil {
				t.Fatal(err)
			}
			<-f.tools.started
			tc.end(f)
			if err := f.serveResult(); !errors.Is(err, tc.wantErr) {
				t.Fatalf("Serve = %v, want %v", err, tc.wantErr)
			}
			// Serve returned, so the block tool has returned: its context was cancelled.
			if !tc.replied {
				return
			}
			raw, err := p.Wait(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var res protocol.ToolCallResult
			if err := json.Unmarshal(raw, &res); err != nil || !res.IsError || !strings.Contains(res.Content, "cancelled") {
				t.Fatalf("reply = %s (%v)", raw, err)
			}
		})
	}
}

func TestUnknownMethod(t *testing.T) {
	f := start(t)
	f.initialize()
	e := f.callErr("tools/frobnicate", struct{}{})
	if e.Code != jsonrpc2.MethodNotFound || !strings.Contains(e.Message, `"tools/frobnicate"`) || !strings.Contains(e.Message, "tools/call") {
		t.Errorf("unknown method: %d %q", e.Code, e.Message)
	}
	// Notifications are never answered, even odd ones.
	for _, m := range []string{protocol.MethodInitialized, protocol.MethodDiagnosticsPublish, protocol.MethodWorkspaceDirty, protocol.MethodWorkspaceSaved, "$/setTrace"} {
		if err := f.client.Notify(waitCtx(t), m, map[string]any{"uris": []string{}}); err != nil {
			t.Fatal(err)
		}
	}
	f.tool("count", nil)
	if n := f.client.PendingOrphans(); n != 0 {
		t.Fatalf("%d error replies to notifications", n)
	}
}
