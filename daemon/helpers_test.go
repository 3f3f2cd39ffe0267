package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/rpctest"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

func TestMain(m *testing.M) {
	// Undo checkpoints, saved permissions and logs go under the XDG
	// folders: keep them out of the real ones.
	xdg, err := os.MkdirTemp("", "tether-daemon-test-")
	if err != nil {
		panic(err)
	}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, filepath.Join(xdg, v))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(xdg)
		if buildDir != "" {
			os.RemoveAll(buildDir)
		}
		os.Exit(code)
	}))
}

// wait bounds every wait in these tests, so a bug shows as a failure
// instead of a hung test run. Nothing is asserted about how fast anything is.
const wait = 20 * time.Second

func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// testTools are the tools the in-process tests serve beside read_file.
type testTools struct {
	started chan string  // each block call sends its tag when it starts
	counted atomic.Int32 // runs of the count tool
	// blocking is how many block calls run now; mostBlocking the most at once.
	blocking, mostBlocking atomic.Int32
}

type tagArgs struct {
	Tag string `json:"tag,omitempty"`
}

type createArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (tt *testTools) list() []tool.Tool {
	block := tool.New(tool.Def[tagArgs]{
		Name: "block", Doc: "Blocks until the call is cancelled.", Risk: protocol.RiskLow, ReadOnly: true,
		Run: func(ctx context.Context, c *tool.Call, a tagArgs) (tool.Result, error) {
			n := tt.blocking.Add(1)
			defer tt.blocking.Add(-1)
			for m := tt.mostBlocking.Load(); n > m && !tt.mostBlocking.CompareAndSwap(m, n); m = tt.mostBlocking.Load() {
			}
			tt.started <- a.Tag
			<-ctx.Done()
			return tool.Failf("block %s was cancelled", a.Tag), nil
		},
	})
	count := tool.New(tool.Def[tagArgs]{
		Name: "count", Doc: "Counts its runs.", Risk: protocol.RiskLow, ReadOnly: true,
		Run: func(ctx context.Context, c *tool.Call, a tagArgs) (tool.Result, error) {
			tt.counted.Add(1)
			return tool.Text("counted"), nil
		},
	})
	create := tool.New(tool.Def[createArgs]{
		Name: "create_file", Doc: "Creates a file through the change executor.", Risk: protocol.RiskHigh,
		Run: func(ctx context.Context, c *tool.Call, a createArgs) (tool.Result, error) {
			loc, err := c.LocateWrite(a.Path)
			if err != nil {
				return tool.Result{}, err
			}
			return c.Apply(ctx, &tool.Plan{
				Title:   "Create " + a.Path,
				Changes: []tool.Change{{Kind: tool.Write, Path: loc, After: []byte(a.Content), FullyKnown: true}},
				Done:    "created " + a.Path,
			})
		},
	})
	ask := tool.New(tool.Def[tagArgs]{
		Name: "ask_test", Doc: "Asks the user through the host.", Risk: protocol.RiskLow, ReadOnly: true,
		Run: func(ctx context.Context, c *tool.Call, a tagArgs) (tool.Result, error) {
			res, err := c.Host().Ask(ctx, protocol.UserAskParams{Question: "which?", Options: []string{"a", "b"}})
			if err != nil {
				return tool.Failf("%v", err), nil
			}
			c.Host().PlanChanged(ctx, nil)
			return tool.Text("answer: " + res.Answer), nil
		},
	})
	return []tool.Tool{tools.ReadFile, tools.EditFile, tools.WriteFile, tools.Problems, block, count, create, ask}
}

func (tt *testTools) registry() *tool.Registry { return tool.NewRegistry(tt.list()...) }

// withCompose is the test tools and compose, whose programs call them.
func (tt *testTools) withCompose() *tool.Registry {
	return tool.NewRegistry(append(tt.list(), tools.Compose)...)
}

// fixture is one daemon served in-process over two pipes, and a client.
type fixture struct {
	t        testing.TB
	dir      string // the workspace folder
	tools    *testTools
	client   *rpctest.Client
	in       *io.PipeWriter // the daemon's stdin, written by the client
	cancel   context.CancelFunc
	served   chan struct{} // closed when Serve returns
	serveErr error
	log      *syncBuffer

	approvals chan protocol.ApprovalRequestParams
	answer    atomic.Value // protocol.Answer: how the client answers approvals ("wait": never)
	// chat answers model/chat, as the editor's language model would.
	chat func(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error)
}

type fixtureOptions struct {
	maxMessageBytes int64
	registry        *tool.Registry // nil: the test tools
	chat            func(ctx context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error)
	compose         bool // serve compose beside the test tools
}

// start serves a fresh workspace; the daemon is not yet initialized.
func start(t testing.TB, opts ...fixtureOptions) *fixture {
	t.Helper()
	var o fixtureOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	f := &fixture{
		t:         t,
		dir:       t.TempDir(),
		tools:     &testTools{started: make(chan string, 16)},
		served:    make(chan struct{}),
		log:       &syncBuffer{},
		approvals: make(chan protocol.ApprovalRequestParams, 16),
		chat:      o.chat,
	}
	f.answer.Store(protocol.AnswerYes)
	reg := o.registry
	if reg == nil {
		reg = f.tools.registry()
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f.in = inW
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	if o.compose {
		reg = f.tools.withCompose()
	}
	go func() {
		err := daemon.Serve(ctx, inR, outW, daemon.Options{
			Version:         "test-1",
			Registry:        reg,
			Log:             logging.New(f.log, slog.LevelInfo),
			MaxMessageBytes: o.maxMessageBytes,
		})
		outW.Close()
		f.serveErr = err
		close(f.served)
	}()
	f.client = rpctest.NewClient(ctx, outR, inW, f.handle)
	t.Cleanup(f.close)
	return f
}

// handle answers the daemon's calls as an editor would.
func (f *fixture) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodApprovalRequest:
		var req protocol.ApprovalRequestParams
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		f.approvals <- req
		answer := f.answer.Load().(protocol.Answer)
		if answer == "wait" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return protocol.ApprovalRequestResult{Answer: answer}, nil
	case protocol.MethodUserAsk:
		return protocol.UserAskResult{Answer: "b"}, nil
	case protocol.MethodModelChat:
		if f.chat == nil {
			break
		}
		var p protocol.ModelChatParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return f.chat(ctx, p)
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

// close ends the input and waits for Serve and the client to finish.
func (f *fixture) close() {
	f.in.Close()
	select {
	case <-f.served:
	case <-time.After(wait):
		f.t.Errorf("Serve did not return after its input closed")
	}
	f.cancel()
	<-f.client.Done()
}

// serveResult waits for Serve to return.
func (f *fixture) serveResult() error {
	f.t.Helper()
	select {
	case <-f.served:
		return f.serveErr
	case <-time.After(wait):
		f.t.Fatal("Serve did not return")
		return nil
	}
}

func (f *fixture) initParams(caps protocol.ClientCapabilities, settings *protocol.Settings) protocol.InitializeParams {
	return protocol.InitializeParams{
		ClientInfo:       protocol.ClientInfo{Name: "test"},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(f.dir), Name: "ws"}},
		Capabilities:     caps,
		Settings:         settings,
	}
}

// initialize opens the session with the approval capability.
func (f *fixture) initialize() protocol.InitializeResult {
	f.t.Helper()
	var res protocol.InitializeResult
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true, AskUser: true, Todo: true}, nil), &res)
	return res
}

// call makes a call that must succeed.
func (f *fixture) call(method string, params, result any) {
	f.t.Helper()
	if _, err := f.client.Call(waitCtx(f.t), method, params, result); err != nil {
		f.t.Fatalf("%s: %v", method, err)
	}
}

// callErr makes a call that must fail with a JSON-RPC error, and returns it.
func (f *fixture) callErr(method string, params any) *jsonrpc2.Error {
	f.t.Helper()
	_, err := f.client.Call(waitCtx(f.t), method, params, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) {
		f.t.Fatalf("%s: got %v, want a JSON-RPC error", method, err)
	}
	return rpcErr
}

// tool runs tools/call.
func (f *fixture) tool(name string, args any) protocol.ToolCallResult {
	f.t.Helper()
	return f.toolIn("r1", name, args)
}

// toolIn calls a tool as part of the chat request requestID.
func (f *fixture) toolIn(requestID, name string, args any) protocol.ToolCallResult {
	f.t.Helper()
	var res protocol.ToolCallResult
	f.call(protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args, "requestId": requestID}, &res)
	return res
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, rel), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// syncBuffer collects the daemon's log while tests read it.
type syncBuffer = rpctest.SyncBuffer
