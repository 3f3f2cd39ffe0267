package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// Defaults of the Options that are durations.
const (
	// DefaultQuietGap is how long a session may pause between calls and
	// still be in the same request: the rule for the editor's chat turns.
	DefaultQuietGap = tool.TurnGap
	// DefaultProgressEvery is how often a running call reports progress,
	// to a client that asked for it.
	DefaultProgressEvery = time.Second
	// DefaultInputWait is how long a call parked for the user's answer
	// (protocol 2026-07-28 and later) waits for the client to come back
	// with it before it is stopped.
	DefaultInputWait = 10 * time.Minute
	// DefaultRootsWait is how long a call waits for the client's roots
	// before it runs in the folder tether was started in.
	DefaultRootsWait = 10 * time.Second
	// DefaultInstantDecline is how fast a declined or dismissed question
	// must come back to count as never shown: nobody reads a question,
	// let alone a diff, and answers it within a second.
	DefaultInstantDecline = time.Second
)

// ApprovalRoute says where tether mcp puts its approvals and questions.
type ApprovalRoute string

const (
	// RouteAuto asks the project's approver (an editor, or tether
	// approvals) when one listens, else the client by elicitation.
	RouteAuto ApprovalRoute = "auto"
	// RouteEditor asks the editor connected to the project's tether serve.
	RouteEditor ApprovalRoute = "editor"
	// RouteTerminal asks `tether approvals` running in a terminal.
	RouteTerminal ApprovalRoute = "terminal"
	// RouteElicitation asks the MCP client, by elicitation, only.
	RouteElicitation ApprovalRoute = "elicitation"
)

// ApprovalRoutes lists the routes in the order they are documented.
var ApprovalRoutes = []ApprovalRoute{RouteAuto, RouteEditor, RouteTerminal, RouteElicitation}

// Options configure Serve.
type Options struct {
	// Registry is the set of tools to serve (tools.Builtin()).
	Registry *tool.Registry
	// Workspaces are the workspace folders; the first is the base of
	// relative paths. Empty: the client's roots where it offers them,
	// else the current folder.
	Workspaces []string
	// Settings are the client's settings, as the editor sends them in
	// initialize (the command line's flags fill them in); absent fields
	// take their defaults.
	Settings protocol.Settings
	// QuietGap ends a request: a call that starts longer than this after
	// the last one ended starts a new request (and undo checkpoint).
	QuietGap time.Duration
	// Version is reported to the client as the server's version.
	Version string
	// Log receives the server's log; nil discards it. The log also
	// reaches the client as MCP log messages, at the level it asks for.
	Log *slog.Logger
	// Approvals is where approvals and ask_user questions go; empty
	// means RouteAuto.
	Approvals ApprovalRoute
	// InstantDecline: a question declined or dismissed faster than this
	// was not shown to anyone (see DefaultInstantDecline); 0 means the
	// default, a negative value takes every decline for the user's.
	InstantDecline time.Duration

	// ProgressEvery, InputWait and RootsWait: see the defaults.
	ProgressEvery time.Duration
	InputWait     time.Duration
	RootsWait     time.Duration
}

func (o *Options) defaults() {
	if o.QuietGap <= 0 {
		o.QuietGap = DefaultQuietGap
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	if o.InputWait <= 0 {
		o.InputWait = DefaultInputWait
	}
	if o.RootsWait <= 0 {
		o.RootsWait = DefaultRootsWait
	}
	if o.Approvals == "" {
		o.Approvals = RouteAuto
	}
	if o.InstantDecline == 0 {
		o.InstantDecline = DefaultInstantDecline
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// instructions tell the client's model what kind of server this is.
const instructions = "Tether: file, search and shell tools with guardrails enforced in code. " +
	"Read a file before editing it; changes and commands may ask the user first; " +
	"the changes of one run of work form one undo checkpoint that `tether undo` puts back."

// server is one `tether mcp`: one client over stdio, hence one MCP session.
type server struct {
	o        Options
	reg      *tool.Registry
	log      *slog.Logger
	settings tool.Settings
	mcp      *sdk.Server

	// One agent's memory of the files it read, for the whole session.
	session  *tool.Session
	requests *requestIDs
	marks    *tool.Requests
	jobs     *shell.Jobs
	ws       *workspaces
	runs     *parked

	// clock times how fast the client answers a question.
	clock func() time.Time

	// ctx bounds every call's run; stop ends them when the session ends.
	ctx     context.Context
	stop    context.CancelFunc
	running sync.WaitGroup
}

// Serve serves MCP on in and out (one JSON-RPC message a line) until the
// client closes in, or ctx ends. Every command the tools started dies
// with it.
func Serve(ctx context.Context, in io.ReadCloser, out io.Writer, o Options) error {
	s, err := newServer(o)
	if err != nil {
		return err
	}
	defer s.close()
	ss, err := s.mcp.Connect(ctx, &lineTransport{in: in, out: out, log: s.log}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Stop the calls first: closing the session waits for them.
		s.stop()
		ss.Close()
		err = <-done
	}
	if errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) || ctx.Err() != nil {
		err = nil
	}
	return err
}

func newServer(o Options) (*server, error) {
	o.defaults()
	if o.Registry == nil {
		return nil, errors.New("mcp: no tool registry")
	}
	// The log goes to the client as well as where the caller sends it.
	toClient := newClientLog()
	o.Log = slog.New(slog.NewMultiHandler(o.Log.Handler(), toClient))
	set, err := tool.NewSettings(o.Settings)
	if err != nil {
		return nil, err
	}
	if set.RgErr != nil {
		o.Log.Warn("grep and glob will not work until ripgrep is available", "err", set.RgErr)
	}
	ws, err := newWorkspaces(o.Workspaces, &set, o.Log)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &server{
		o:        o,
		reg:      o.Registry,
		log:      o.Log,
		settings: set,
		session:  tool.NewSession(),
		requests: newRequestIDs(o.QuietGap),
		marks:    tool.NewRequests(),
		ws:       ws,
		clock:    time.Now,
		ctx:      ctx,
		stop:     stop,
	}
	s.runs = newParked(o.InputWait)
	if s.jobs, err = shell.OpenJobs(); err != nil {
		s.log.Warn("background jobs are unavailable", "err", err)
		s.jobs = nil
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "tether", Title: "Tether", Version: o.Version}, &sdk.ServerOptions{
		Instructions:            instructions,
		Logger:                  slog.New(minLevel{s.log.Handler(), slog.LevelWarn}),
		Capabilities:            &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Logging: &sdk.LoggingCapabilities{}},
		InitializedHandler:      func(_ context.Context, req *sdk.InitializedRequest) { s.followRoots(req.Session) },
		RootsListChangedHandler: func(_ context.Context, req *sdk.RootsListChangedRequest) { s.followRoots(req.Session) },
	})
	for _, info := range s.reg.Infos(&s.settings) {
		t, _ := s.reg.Lookup(info.Name)
		s.mcp.AddTool(sdkTool(info, tool.ChangesFiles(t)), s.callTool)
	}
	s.mcp.AddReceivingMiddleware(s.offeredOnly, toClient.follow)
	return s, nil
}

// close ends every run, then releases the stores and the job manager.
func (s *server) close() {
	s.stop()
	s.runs.closeAll()
	s.running.Wait()
	s.ws.close()
	if s.jobs != nil {
		s.jobs.Close()
	}
}

// clientCaps is what the client can do, in the registry's terms. The
// user can be asked where the client elicits, or where questions go to
// the project's approver.
func (s *server) clientCaps(ss *sdk.ServerSession) protocol.ClientCapabilities {
	c := sdkCaps(ss)
	ask := canElicit(c) || s.o.Approvals != RouteElicitation
	return protocol.ClientCapabilities{Approval: ask, AskUser: ask, Models: c.Sampling != nil}
}

func sdkCaps(ss *sdk.ServerSession) *sdk.ClientCapabilities {
	if ss == nil {
		return &sdk.ClientCapabilities{}
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return &sdk.ClientCapabilities{}
	}
	return p.Capabilities
}

// canElicit reports whether the client takes form elicitations: an
// elicitation capability with neither mode named means forms.
func canElicit(c *sdk.ClientCapabilities) bool {
	e := c.Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}

// statelessProtocol is the first protocol version in which a server may
// not send requests of its own while it serves a call.
const statelessProtocol = "2026-07-28"

// inputByResult reports whether the session's protocol asks for the
// user's input through the call's result (SEP-2322) rather than through
// requests from the server.
func inputByResult(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= statelessProtocol
}

// offeredOnly narrows tools/list to the tools this client can use, in the
// registry's order: a tool that needs what the client cannot do (ask_user
// without elicitation, problems without an editor) is left out, as the
// daemon leaves it out.
func (s *server) offeredOnly(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*sdk.ListToolsResult)
		if err != nil || !ok {
			return res, err
		}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		// The env of a listing has what every session's env gets: the
		// client's capabilities, the jobs, and a project's stores, of
		// which only the memory store's presence matters here.
		env := &tool.Env{Capabilities: s.clientCaps(ss), Jobs: s.jobs, Settings: s.settings, Memory: &memory.Store{}}
		byName := map[string]*sdk.Tool{}
		for _, t := range list.Tools {
			byName[t.Name] = t
		}
		kept := []*sdk.Tool{}
		for _, info := range s.reg.Offered(env) {
			if t := byName[info.Name]; t != nil {
				kept = append(kept, t)
			}
		}
		list.Tools = kept
		return list, nil
	}
}

// minLevel drops records below a level: the SDK's info lines are noise in
// a client's server log.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

// clientName names the client for people: its title, else its name, as
// it introduced itself.
func clientName(ss *sdk.ServerSession) string {
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			if p.ClientInfo.Title != "" {
				return p.ClientInfo.Title
			}
			if p.ClientInfo.Name != "" {
				return p.ClientInfo.Name
			}
		}
	}
	return "an MCP client"
}
