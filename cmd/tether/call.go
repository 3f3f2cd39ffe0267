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
	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/workspace"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// callOptions are the flags of `tether call`.
type callOptions struct {
	yes        bool
	workspaces folderList
	requestID  string
	json       bool
	stdin      bool
	// settings are what the flags set, as the editor would send them in
	// initialize; set is what they make.
	settings protocol.Settings
	set      tool.Settings
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runCall(args []string) int {
	// Ctrl-C cancels the running call, which stops its child processes,
	// instead of killing tether halfway through a write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	oneProcessor()
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
	ws, err := opts.workspace()
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether call: %v\n", err)
		return 2
	}
	defer ws.Close()
	for _, c := range calls {
		// Only a run that may start commands probes the sandbox.
		if c.Name == "shell" || c.Name == "compose" || c.Name == "agent" {
			startSandboxProbe(opts.set.Sandbox.Mode)
			break
		}
	}
	log := cliLogger(cio.stderr, opts.set.LogLevel)
	// A run ends with its last call: background jobs would die with it.
	st, err := tool.OpenStores(ws, &opts.set, log, false)
	if err != nil {
		fmt.Fprintf(cio.stderr, "tether call: %v\n", err)
		return 1
	}
	defer st.Close()
	env := opts.env(cio, ws, st, log)
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

// callFlags are the flags of `tether call`, bound to o.
func callFlags(o *callOptions, cio cmdIO) *flag.FlagSet {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	settingsFlags(fs, &o.settings, true)
	fs.BoolVar(&o.yes, "yes", false, "answer every approval \"yes\" without asking")
	fs.Var(&o.workspaces, "workspace", "workspace folder `DIR` (repeatable; the first is the base of relative paths; default: the current directory)")
	fs.StringVar(&o.requestID, "request", "", "request `ID`: changes under one id form one undo checkpoint (default: a fresh id per run)")
	fs.BoolVar(&o.json, "json", false, "print each result as a JSON line {name, content, isError, diff}")
	fs.BoolVar(&o.stdin, "stdin", false, "read calls from stdin, one {\"name\":..., \"arguments\":{...}} a line (same as a lone -)")
	fs.Usage = func() { callUsage(fs) }
	return fs
}

func parseCallArgs(args []string, cio cmdIO, reg *tool.Registry) (callOptions, []callSpec, error) {
	var o callOptions
	fs := callFlags(&o, cio)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, nil, err
		}
		return o, nil, errUsageShown
	}
	var err error
	if o.set, err = checkSettings(fs, o.settings); err != nil {
		return o, nil, err
	}
	if o.requestID == "" {
		o.requestID = freshRequestID()
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

// workspace is the folders the calls run in, and the write roots.
func (o callOptions) workspace() (*workspace.Workspace, error) {
	folders := []string(o.workspaces)
	if len(folders) == 0 {
		folders = []string{"."}
	}
	return tool.OpenWorkspace(folders, &o.set)
}

// env builds what the tools run in: the workspace, the terminal host, the
// settings and the project's stores. Calls read from stdin keep the host
// off it, which the calls used up.
func (o callOptions) env(cio cmdIO, ws *workspace.Workspace, st *stores.Stores, log *slog.Logger) *tool.Env {
	terminal := cio.terminal
	if o.stdin {
		terminal = ttyOnly(terminal)
	}
	return tool.NewEnv(tool.EnvConfig{
		Workspace: ws,
		Host:      &cliHost{yes: o.yes, stderr: cio.stderr, terminal: terminal},
		Log:       log,
		// The terminal can answer ask_user. The todo plan is printed as the
		// tool's result, so it needs no notification.
		Capabilities: protocol.ClientCapabilities{AskUser: true},
		Settings:     o.set,
		Stores:       st,
	})
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

// cliLogger logs to stderr only, at the level the settings name, else
// TETHER_LOG_LEVEL's, else warn: a command-line run shows its results, not
// the daemon's chatter.
func cliLogger(w io.Writer, setting string) *slog.Logger {
	level := slog.LevelWarn
	for _, name := range []string{os.Getenv(logging.EnvLevel), setting} {
		if name == "" {
			continue
		}
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
