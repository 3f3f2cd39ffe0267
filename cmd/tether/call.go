package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/logging"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/search"
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// callOptions are the flags of `tether call`.
type callOptions struct {
	mode       protocol.Mode
	yes        bool
	workspaces stringList
	budget     int
	requestID  string
	json       bool
	rgPath     string
	stdin      bool
	// The web tools' settings, from --web-* flags and TETHER_BRAVE_API_KEY.
	webSet  web.Settings
	webSecs int
	webCfg  web.Config
}

// webFlags maps the web settings' names to the flags that set them.
var webFlags = map[string]string{
	"webAllowedHosts":   "--web-allow",
	"webPrivateHosts":   "--web-private",
	"webSearchEndpoint": "--web-search-endpoint",
	"webTimeout":        "--web-timeout",
	"webMaxBytes":       "--web-max-bytes",
}

// envBraveKey names the environment variable with the Brave Search API key
// (an environment variable, so the key does not show in the process list).
const envBraveKey = "TETHER_BRAVE_API_KEY"

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runCall(args []string) int {
	// Ctrl-C cancels the running call, which stops its child processes,
	// instead of killing tether halfway through a write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return callMain(ctx, args, osIO())
}

// callMain runs `tether call`: every call in one session, so a read
// licenses the edit after it, under one request id, as one chat turn
// would be. Exit status: 0 all succeeded, 1 a call failed (the rest are
// not run), 2 usage error.
func callMain(ctx context.Context, args []string, cio cmdIO) int {
	reg := tools.Builtin()
	opts, calls, err := parseCallArgs(args, cio, reg)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !errors.Is(err, errUsageShown) {
			fmt.Fprintf(cio.stderr, "tether call: %v\n", err)
		}
		return 2
	}
	env, err := opts.env(cio, opts.stdin)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether call: %v\n", err)
		return 2
	}
	st, err := tool.OpenStores(env.Workspace.Primary(), stores.Options{Log: env.Log, Roots: env.Workspace.Paths()})
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether call: %v\n", err)
		return 1
	}
	env.Attach(st)
	defer st.Close()
	defer func() {
		if id, ok := st.Undo.CheckpointID(opts.requestID); ok {
			fmt.Fprintf(cio.stderr, "tether call: the changes of request %s are undo checkpoint %s\n", opts.requestID, id)
		}
	}()

	session := tool.NewSession()
	out := resultPrinter{cio: cio, json: opts.json, total: len(calls)}
	for i, spec := range calls {
		if ctx.Err() != nil {
			fmt.Fprintf(cio.stderr, "tether call: interrupted; call %d of %d and those after it were not run\n", i+1, len(calls))
			return 1
		}
		res := reg.Invoke(ctx, &tool.Call{
			Name:      spec.Name,
			Args:      spec.Arguments,
			RequestID: opts.requestID,
			Budget:    tool.NewBudget(0, env.Settings.TokenBudget),
			Session:   session,
			Env:       env,
		})
		out.print(i, spec.Name, res)
		if res.IsError {
			if rest := len(calls) - i - 1; rest > 0 {
				fmt.Fprintf(cio.stderr, "tether call: call %d of %d (%s) failed, so the %d call(s) after it were not run: later calls usually depend on earlier ones\n", i+1, len(calls), spec.Name, rest)
			}
			return 1
		}
	}
	return 0
}

// errUsageShown marks a flag error the flag package has already printed.
var errUsageShown = errors.New("usage shown")

func parseCallArgs(args []string, cio cmdIO, reg *tool.Registry) (callOptions, []callSpec, error) {
	var o callOptions
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	fs.StringVar((*string)(&o.mode), "mode", string(protocol.ModeDefault), "permission `MODE`: "+permission.ModeNames())
	fs.BoolVar(&o.yes, "yes", false, "answer every approval \"yes\" without asking")
	fs.Var(&o.workspaces, "workspace", "workspace folder `DIR` (repeatable; the first is the base of relative paths; default: the current directory)")
	fs.IntVar(&o.budget, "budget", 0, fmt.Sprintf("output budget per call, in `tokens` (default %d)", tool.DefaultTokenBudget))
	fs.StringVar(&o.requestID, "request", "", "request `ID`: changes under one id form one undo checkpoint (default: a fresh id per run)")
	fs.BoolVar(&o.json, "json", false, "print each result as a JSON line {name, content, isError, diff}")
	fs.StringVar(&o.rgPath, "rg", "", "ripgrep binary `PATH` (default: rg on PATH)")
	fs.BoolVar(&o.stdin, "stdin", false, "read calls from stdin, one {\"name\":..., \"arguments\":{...}} a line (same as a lone -)")
	fs.Var((*stringList)(&o.webSet.AllowedHosts), "web-allow", "`HOST` web_fetch reaches without asking: example.com, or *.example.com for its subdomains (repeatable)")
	fs.Var((*stringList)(&o.webSet.PrivateHosts), "web-private", "`HOST` or CIDR on loopback or a private network that web requests may reach, fetched over http as given (repeatable)")
	fs.StringVar(&o.webSet.SearchEndpoint, "web-search-endpoint", "", "`URL` of the HTML search endpoint (default DuckDuckGo's; "+envBraveKey+" selects the Brave Search API)")
	fs.IntVar(&o.webSecs, "web-timeout", 0, fmt.Sprintf("time limit of one fetch or search, in `seconds` (default %d)", int(web.DefaultTimeout/time.Second)))
	fs.Int64Var(&o.webSet.MaxBytes, "web-max-bytes", 0, fmt.Sprintf("most `bytes` read of one response (default %d)", web.DefaultMaxBytes))
	fs.Usage = func() { callUsage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, nil, err
		}
		return o, nil, errUsageShown
	}
	if !permission.ValidMode(o.mode) {
		return o, nil, fmt.Errorf("--mode %q is not a permission mode; use one of: %s", o.mode, permission.ModeNames())
	}
	if o.budget < 0 {
		return o, nil, fmt.Errorf("--budget %d: the budget is a number of tokens above 0", o.budget)
	}
	if o.requestID == "" {
		o.requestID = freshRequestID()
	}
	o.webSet.Timeout = time.Duration(o.webSecs) * time.Second
	o.webSet.BraveAPIKey = os.Getenv(envBraveKey)
	var err error
	if o.webCfg, err = web.NewConfig(o.webSet); err != nil {
		var fe *web.FieldError
		if errors.As(err, &fe) && webFlags[fe.Field] != "" {
			return o, nil, fmt.Errorf("%s: %v", webFlags[fe.Field], fe.Err)
		}
		return o, nil, err
	}
	rest := fs.Args()
	if len(rest) == 1 && rest[0] == "-" {
		o.stdin, rest = true, nil
	}
	if o.stdin {
		if len(rest) > 0 {
			return o, nil, fmt.Errorf("calls come either from stdin or from the command line, not both; got %q after --stdin", rest)
		}
		calls, err := callsFromStdin(cio.stdin, reg)
		return o, calls, err
	}
	calls, err := callsFromArgs(rest, reg)
	return o, calls, err
}

func callUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `usage: tether call [flags] TOOL JSON [TOOL JSON ...]
       tether call [flags] -        (JSON lines from stdin: {"name": TOOL, "arguments": {...}})

Runs the calls in order in one session (a read licenses the edits after it)
and stops at the first call that fails. Exit status: 0 all succeeded,
1 a call failed, 2 usage error.

example:
  tether call --yes read_file '{"path":"main.go"}' \
      edit_file '{"path":"main.go","old_string":"old","new_string":"new"}'

flags:
`)
	fs.PrintDefaults()
}

// env builds what the tools run in: the workspace, the terminal host and
// ripgrep. callsOnStdin keeps the host off stdin, which the calls used up.
func (o callOptions) env(cio cmdIO, callsOnStdin bool) (*tool.Env, error) {
	folders := []string(o.workspaces)
	if len(folders) == 0 {
		folders = []string{"."}
	}
	ws, err := workspace.New(folders...)
	if err != nil {
		return nil, err
	}
	rg, err := search.LookRg(o.rgPath)
	if err != nil && o.rgPath != "" {
		return nil, fmt.Errorf("--rg: %v", err)
	}
	terminal := cio.terminal
	if callsOnStdin {
		terminal = ttyOnly(terminal)
	}
	return &tool.Env{
		Workspace: ws,
		Host:      &cliHost{yes: o.yes, stderr: cio.stderr, terminal: terminal},
		// The terminal can answer ask_user. The todo plan is printed as the
		// tool's result, so it needs no notification.
		Capabilities: protocol.ClientCapabilities{AskUser: true},
		Settings:     tool.Settings{Mode: o.mode, RgPath: rg, TokenBudget: o.budget, Web: o.webCfg},
		Log:          cliLogger(cio.stderr),
		Requests:     tool.NewRequests(),
	}, nil
}

// ttyOnly refuses the stdin fallback of openTerminal: stdin held the calls.
func ttyOnly(open func() (io.ReadWriteCloser, error)) func() (io.ReadWriteCloser, error) {
	return func() (io.ReadWriteCloser, error) {
		t, err := open()
		if _, onStdin := t.(stdinTerminal); onStdin {
			return nil, fmt.Errorf("%w (stdin carried the calls and /dev/tty cannot be opened)", errNoTerminal)
		}
		return t, err
	}
}

// freshRequestID names one `tether call` run, so its changes form one
// checkpoint of their own.
func freshRequestID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "cli-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// cliLogger logs to stderr only, at TETHER_LOG_LEVEL or else warn: a
// command-line run shows its results, not the daemon's chatter.
func cliLogger(w io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if name := os.Getenv(logging.EnvLevel); name != "" {
		if parsed, err := logging.ParseLevel(name); err == nil {
			level = parsed
		}
	}
	return logging.New(w, level).Logger()
}

// resultPrinter writes results: text for people (a failure on stderr) or
// one JSON object a line for programs.
type resultPrinter struct {
	cio   cmdIO
	json  bool
	total int
}

// jsonResult is one result in --json output.
type jsonResult struct {
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"isError"`
	Diff    string `json:"diff"`
}

func (p resultPrinter) print(i int, name string, r tool.Result) {
	if p.json {
		line, _ := json.Marshal(jsonResult{Name: name, Content: r.Content, IsError: r.IsError, Diff: r.Diff})
		fmt.Fprintf(p.cio.stdout, "%s\n", line)
		return
	}
	w := p.cio.stdout
	if r.IsError {
		w = p.cio.stderr
	}
	if p.total > 1 {
		fmt.Fprintf(w, "== %s [%d/%d]\n", name, i+1, p.total)
	}
	fmt.Fprint(w, withNewline(r.Diff))
	if r.IsError {
		fmt.Fprint(w, "error: ")
	}
	fmt.Fprint(w, withNewline(r.Content))
}
