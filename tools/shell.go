package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type shellArgs struct {
	Command    string   `json:"command" jsonschema:"The command line, run in the first workspace folder by the shell the description names (bash, or PowerShell on Windows). Each call starts afresh: cd and variables do not carry over."`
	Timeout    *float64 `json:"timeout,omitempty" jsonschema:"Seconds before a foreground command is stopped. With background, the job is stopped after this long; without it, the job runs until it ends or is stopped."`
	Background bool     `json:"background,omitempty" jsonschema:"Start the command as a background job and return at once with its job id, pid and log file. Use it for servers, watchers and anything that does not end by itself."`
}

// outputReserve is the part of the budget kept for the status lines.
const outputReserve = 600

//go:embed shell.md
var shellDoc string

// Shell is the shell tool.
var Shell = tool.New(tool.Def[shellArgs]{
	Name: "shell",
	Doc:  shellDoc,
	Data: func(s *tool.Settings) any {
		d := struct {
			DefaultTimeout    time.Duration
			MaxTimeoutSeconds int
			// Unset says no settings are known (the extension's manifest,
			// shared by every platform): the default is shown, the user
			// may change it, and the shell is named for each platform.
			Unset bool
			// Shell names the shell; AllowList says read-only command
			// lines are recognised (POSIX shells); Limits is what this
			// platform cannot promise about stopping a command's processes.
			Shell     string
			AllowList bool
			Limits    string
		}{DefaultTimeout: s.ShellDefaultTimeout(), MaxTimeoutSeconds: int(max(shell.MaxTimeout, s.ShellDefaultTimeout()) / time.Second), Unset: s == nil}
		if s == nil {
			d.Shell, d.AllowList = "bash -c on Linux and macOS, PowerShell on Windows", true
		} else {
			p := shell.ThisPlatform()
			d.Shell, d.AllowList, d.Limits = p.Shell, p.POSIX, p.Limits
		}
		return d
	},
	UserDescription: "Run a command in the terminal",
	Risk:            protocol.RiskHigh,
	Permission:      "asks per program",
	ReadOnly:        false,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["command"].MinLength = jsonschema.Ptr(1)
		// A pointer infers ["null","number"]; null means nothing here.
		s.Properties["timeout"].Types = nil
		s.Properties["timeout"].Type = "number"
		s.Properties["timeout"].Description += fmt.Sprintf(" Default: the timeout the description gives; at most %d (a larger value is lowered to it).", int(shell.MaxTimeout/time.Second))
	},
	Describe: func(a shellArgs) string { return "Running: " + oneLine(a.Command, 80) },
	Run:      runShell,
})

func runShell(ctx context.Context, c *tool.Call, a shellArgs) (tool.Result, error) {
	command := a.Command
	if strings.TrimSpace(command) == "" {
		return tool.Failf("command is empty: pass the command line to run, for example {\"command\": \"go test ./...\"}"), nil
	}
	if strings.ContainsRune(command, 0) {
		return tool.Failf("command contains a NUL byte, which no shell can be given; remove it"), nil
	}
	timeout, clamped, err := commandTimeout(a, c.Env.Settings.ShellDefaultTimeout())
	if err != nil {
		return tool.Failf("%v", err), nil
	}
	gate := gateCommand(ctx, c, command)
	if c.Prepare {
		return tool.Result{Title: gate.title, NeedsApproval: gate.asked, Content: gate.preview(), IsError: gate.refusal != nil}, nil
	}
	if gate.refusal != nil {
		return *gate.refusal, nil
	}
	markNetwork(c, gate.analysis)
	spec := shell.Spec{Command: gate.run, Dir: c.Env.Workspace.Primary(), Timeout: timeout, Detaches: gate.analysis.Detaches}
	if a.Background {
		return startJob(c, spec)
	}
	return runForeground(ctx, c, spec, clamped)
}

// markNetwork records that the request reads content from outside when a
// command evidently reaches the network (curl, git fetch, npm install…) or
// runs programs known only when it runs: what it prints may carry words
// that are not the user's, so memory writes later in the request ask.
func markNetwork(c *tool.Call, a *cmdline.Analysis) {
	if len(a.Network) == 0 && a.Unknowable == "" {
		return
	}
	c.MarkUntrusted("shell command: " + oneLine(a.Command, 100))
}

// commandTimeout reads the timeout argument. A background job has no
// timeout unless the call gives one.
func commandTimeout(a shellArgs, def time.Duration) (time.Duration, bool, error) {
	if a.Background && a.Timeout == nil {
		return 0, false, nil
	}
	return shell.Timeout(a.Timeout, def)
}

func runForeground(ctx context.Context, c *tool.Call, spec shell.Spec, clamped bool) (tool.Result, error) {
	out := shell.NewCapture(max(c.Budget.OutputChars()-outputReserve, 1000))
	var outcome shell.Outcome
	var err error
	if c.Env.Jobs != nil {
		outcome, err = c.Env.Jobs.Run(ctx, spec, out)
	} else {
		outcome, err = shell.Run(ctx, spec, out)
	}
	if err != nil {
		return tool.Failf("the command could not be started: %v", err), nil
	}
	var b strings.Builder
	b.WriteString(showOutput(out))
	notes, failed := describeOutcome(outcome, true)
	if clamped {
		notes = append(notes, fmt.Sprintf("the timeout was lowered to %g seconds, the most a call may ask for", outcome.Timeout.Seconds()))
	}
	for _, n := range notes {
		b.WriteString("[" + n + "]\n")
	}
	return tool.Result{Content: b.String(), IsError: failed}, nil
}

// showOutput renders captured output for the model.
func showOutput(out *shell.Capture) string {
	switch {
	case out.Total() == 0:
		return "(no output)\n"
	case out.Binary():
		return fmt.Sprintf("(the output is binary data, %s, and is not shown. Write it to a file, or pipe it through `od -c | head` to look at it.)\n", humanBytes(out.Total()))
	}
	s := shell.CleanOutput(out.String())
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// describeOutcome says how a command ended, as notes for the model, and
// whether that counts as a failure of the call. A non-zero exit code is
// not one: it is the command's answer (grep finding nothing), reported
// as such.
func describeOutcome(o shell.Outcome, foreground bool) (notes []string, failed bool) {
	took := o.Elapsed.Round(time.Millisecond)
	switch o.Stop {
	case shell.TimedOut:
		failed = true
		hint := fmt.Sprintf("Pass a larger timeout (at most %d seconds)", int(max(shell.MaxTimeout, o.Timeout)/time.Second))
		if foreground {
			hint += ", or run it with background: true if it is a server or a watcher"
		}
		notes = append(notes, fmt.Sprintf("stopped: the command ran past its timeout of %s and it and everything it started were killed. %s", seconds(o.Timeout), hint))
	case shell.Cancelled:
		failed = true
		notes = append(notes, "stopped: "+cancelCause(o.Cause)+"; the command and everything it started were killed")
	default:
		if o.Signal != "" {
			notes = append(notes, fmt.Sprintf("the command was killed by %s after %s", o.Signal, took))
		} else {
			notes = append(notes, fmt.Sprintf("exit code %d, after %s", o.ExitCode, took))
		}
	}
	if o.Leftovers > 0 && foreground {
		notes = append(notes, fmt.Sprintf("%d process(es) it left running were stopped when it ended; start servers and watchers with background: true", o.Leftovers))
	}
	if o.OutputHeld {
		notes = append(notes, "a process that left the command's process group kept its output open and could not be found: output after this point is lost, and that process may still be running")
	}
	return notes, failed
}

// cancelCause names the deadline that stopped a command, read when it was
// stopped.
func cancelCause(cause error) string {
	switch {
	case cause == shell.ErrKilled:
		return "it was stopped with shell_kill"
	case cause == shell.ErrClosing:
		return "Tether was shutting down"
	case cause == context.DeadlineExceeded:
		return "the call's own deadline (set by the client or the headless run) expired before the command ended"
	}
	return "the call was cancelled by the client"
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d seconds", int(d/time.Second))
	}
	return fmt.Sprintf("%.3g seconds", d.Seconds())
}

// startJob starts a background job and says how to follow it.
func startJob(c *tool.Call, spec shell.Spec) (tool.Result, error) {
	if c.Env.Jobs == nil {
		return tool.Failf("background jobs are not available here (this client runs no job manager). Run the command in the foreground, with a timeout if it is slow"), nil
	}
	job, err := c.Env.Jobs.Start(spec)
	if err != nil {
		return tool.Failf("the job could not be started: %v", err), nil
	}
	limit := "It runs until it ends, is stopped with shell_kill, or Tether exits."
	if spec.Timeout > 0 {
		limit = fmt.Sprintf("It is stopped after %s, with shell_kill, or when Tether exits.", seconds(spec.Timeout))
	}
	return tool.Text(fmt.Sprintf("Started %s in the background (pid %d). Its output goes to %s.\n"+
		"Check on it with shell_output {\"job_id\": %q}: status, exit code and the output new since the last check (pass filter to see only matching lines). %s\n",
		job.ID, job.Pid, job.LogPath, job.ID, limit)), nil
}

// commandGate is the decision on one command line: run it as is, run it
// after asking, or refuse it.
type commandGate struct {
	analysis *cmdline.Analysis
	title    string
	// run is the command line to run (the allow-list may harden it).
	run     string
	asked   bool
	why     string
	refusal *tool.Result
}

func (g commandGate) preview() string {
	switch {
	case g.refusal != nil:
		return g.refusal.Content
	case g.asked:
		return "Would ask the user, then run: " + g.run
	}
	return "Would run without asking (" + g.why + "): " + g.run
}

// gateCommand decides whether a command may run. Read-only forms on the
// allow-list (and a trusted project's test runners) run without asking;
// plan and dry-run modes run nothing else, since a command's effects can
// be neither confined nor staged; everything else goes to Authorize, with
// the programs the command would run.
func gateCommand(ctx context.Context, c *tool.Call, command string) commandGate {
	g := commandGate{analysis: analyze(command), title: "Run: " + oneLine(command, 100), run: command}
	allowed := g.analysis.AllowList(cmdline.Options{Trusted: c.Env.Trusted, Inside: func(p string) bool { return insideWorkspace(c, p) }})
	readOnlyMode := c.Env.Mode() == protocol.ModePlan || c.Env.Mode() == protocol.ModeDryRun
	if allowed.OK && (allowed.ReadOnly || !readOnlyMode) {
		g.run, g.why = allowed.Run, "on the allow-list"
		if !allowed.ReadOnly {
			g.why = "a test run in a trusted project"
		}
		return g
	}
	if readOnlyMode {
		why := allowed.Why
		if allowed.OK {
			why = "it runs the project's code"
		}
		r := tool.Failf("%s mode lets only read-only commands run (git status/diff/log/show, ls, rg, grep, find, cat, head, tail, wc, pwd, echo, with plain arguments and no output to files), and this one is not: %s. It did not run.", c.Env.Mode(), why)
		g.refusal = &r
		return g
	}
	v := c.Authorize(ctx, shellStep(c, command, g.analysis))
	g.asked, g.why = v.Asked, "allowed by the permission mode or a saved rule"
	if !v.Allowed {
		g.refusal = &v.Refusal
		return g
	}
	if v.Answer.Answer == protocol.AnswerAlways {
		saveAlways(c, g.analysis)
	}
	return g
}

// analyze reads a command line for its programs. Only POSIX shell lines
// are parsed: a PowerShell line (Windows) read as bash could hide what it
// runs, so it is never on the allow-list and always asks.
func analyze(command string) *cmdline.Analysis {
	if !shell.ThisPlatform().POSIX {
		return cmdline.Unparsed(command, "PowerShell command lines are not analysed")
	}
	return cmdline.Analyze(command)
}

// shellStep builds the approval for a command. "Always" saves one rule per
// program the approval names, so it allows exactly those programs from
// then on; a later command is let through only when every program it runs
// has a rule (permission.Rules.Allows). A command whose programs cannot be
// known offers no "always": it asks every time.
func shellStep(c *tool.Call, command string, a *cmdline.Analysis) tool.Step {
	req := protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell, Title: "Run: " + oneLine(command, 100), Command: command}
	step := tool.Step{Request: req, Action: permission.Action{Tool: "shell", Changes: true, Outside: true}}
	// Outside: a command can reach any file, so acceptEdits (which allows
	// changes inside the workspace) must not let it through unasked.
	switch {
	case a.Unknowable != "":
		step.Request.AlwaysScope = "this command only: the programs it runs cannot be known before it runs (" + a.Unknowable + ")"
	case len(a.Programs) == 0:
		step.Request.AlwaysScope = "this command only: it runs no program, only shell builtins"
	default:
		step.Programs = a.Programs
		step.Request.Title = fmt.Sprintf("Run %s: %s", joinAnd(a.Programs), oneLine(command, 100))
		step.Request.AlwaysScope = "run " + joinAnd(a.Programs) + " without asking in this project"
	}
	return step
}

// saveAlways records an "always" answer: one rule per program.
func saveAlways(c *tool.Call, a *cmdline.Analysis) {
	if a.Unknowable != "" || c.Env.Rules == nil {
		return
	}
	for _, p := range a.Programs {
		rule := permission.Rule{Kind: protocol.ApprovalShell, Program: p}
		if err := c.Env.Rules.Add(rule); err != nil && c.Env.Log != nil {
			c.Env.Log.Warn("saving an always-allow rule", "rule", rule.String(), "err", err)
		}
	}
}

// insideWorkspace reports whether a path a command names lies inside the
// workspace, symlinks resolved.
func insideWorkspace(c *tool.Call, p string) bool {
	loc, err := c.Env.Workspace.Locate(p)
	return err == nil && loc.Inside
}

// oneLine shortens a command line for a title.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = tool.CutUTF8(s[:max]) + "…"
	}
	return s
}

// joinAnd lists names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
