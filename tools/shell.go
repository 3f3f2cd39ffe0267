package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/overlay"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/sandbox"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type shellArgs struct {
	Command     string   `json:"command" jsonschema:"The command line, run in the first workspace folder by the shell the description names (bash, or PowerShell on Windows). Each call starts afresh: cd and variables do not carry over."`
	Timeout     *float64 `json:"timeout,omitempty" jsonschema:"Seconds before a foreground command is stopped. With background, the job is stopped after this long; without it, the job runs until it ends or is stopped."`
	Background  bool     `json:"background,omitempty" jsonschema:"Start the command as a background job and return at once with its job id, pid and log file. Use it for servers, watchers and anything that does not end by itself."`
	Description string   `json:"description,omitempty" jsonschema:"A few words on what the command is for (\"Run the unit tests\"), shown to the user beside the command line. Optional."`
	Network     *bool    `json:"network,omitempty" jsonschema:"Let the sandboxed command reach the network (installs, fetches, pushes). The user is asked first. A command line that evidently fetches (curl, npm ci, git pull) asks for it by itself."`
	Sandbox     *bool    `json:"sandbox,omitempty" jsonschema:"false runs the command outside the sandbox, with all of the user's rights (Docker, system services, files outside the workspace). The user is asked every time. Leave it out unless a command failed because the sandbox hid what it needs."`
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
			// Sandbox says commands run confined; NoSandbox says why
			// not, when they do not.
			Sandbox   bool
			NoSandbox string
			// Capture says a command in the full sandbox writes into
			// overlay layers, taken in when it ends (Linux, the setting
			// neither off nor landlock).
			Capture        bool
			MaxDescription int
		}{DefaultTimeout: s.ShellDefaultTimeout(), MaxTimeoutSeconds: int(max(shell.MaxTimeout, s.ShellDefaultTimeout()) / time.Second), Unset: s == nil, MaxDescription: maxDescription}
		if s == nil {
			d.Shell, d.AllowList, d.Sandbox, d.Capture = "bash -c on Linux and macOS, PowerShell on Windows", true, true, true
		} else {
			p := shell.ThisPlatform()
			d.Shell, d.AllowList, d.Limits = p.Shell, p.POSIX, p.Limits
			switch {
			case runtime.GOOS == "windows":
				d.NoSandbox = "Windows has no sandbox: commands run with all of the user's rights, which is why they ask first."
			case s.Sandbox.Mode == sandbox.SettingOff:
				d.NoSandbox = "The user has turned the sandbox off (shellSandbox): commands run with all of the user's rights."
			default:
				d.Sandbox = true
				d.Capture = runtime.GOOS == "linux" && s.Sandbox.Mode != sandbox.SettingLandlock
			}
		}
		return d
	},
	UserDescription: "Run a command in the terminal",
	Risk:            protocol.RiskHigh,
	Permission:      "in the full sandbox without network: runs unasked, its changes reviewed after like an edit; otherwise asks per program and subcommand, and for network access; outside the sandbox, every time",
	ReadOnly:        false,
	Tune: func(s *jsonschema.Schema) {
		s.Properties["command"].MinLength = jsonschema.Ptr(1)
		// A pointer infers ["null","number"]; null means nothing here.
		s.Properties["timeout"].Types = nil
		s.Properties["timeout"].Type = "number"
		s.Properties["timeout"].Description += fmt.Sprintf(" Default: the timeout the description gives; at most %d (a larger value is lowered to it).", int(shell.MaxTimeout/time.Second))
		s.Properties["description"].MaxLength = jsonschema.Ptr(maxDescription)
		for _, name := range []string{"network", "sandbox"} {
			s.Properties[name].Types = nil
			s.Properties[name].Type = "boolean"
		}
		s.Properties["network"].Default = json.RawMessage("false")
		s.Properties["sandbox"].Default = json.RawMessage("true")
	},
	Describe: func(a shellArgs) string {
		if d := strings.TrimSpace(a.Description); d != "" {
			return oneLine(d, maxDescription) + ": " + oneLine(a.Command, 60)
		}
		return "Running: " + oneLine(a.Command, 80)
	},
	Run: runShell,
})

// maxDescription bounds a command's description: a few words, not a
// second command line.
const maxDescription = 120

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
		return tool.Result{}, tool.Refuse(err) // the timeout argument is out of range
	}
	want := runRequest{network: a.Network != nil && *a.Network, confined: a.Sandbox == nil || *a.Sandbox, background: a.Background, description: strings.TrimSpace(a.Description)}
	analysis := analyze(command)
	network := want.network || len(analysis.Network) > 0
	box := chooseLevel(ctx, c, want.confined)
	box.capture = box.captures(c, want)
	gate := gateCommand(ctx, c, analysis, want, box)
	if c.Prepare {
		return tool.Result{Title: gate.title, NeedsApproval: gate.asked, Content: gate.preview(), IsError: gate.refusal != nil}, nil
	}
	if gate.refusal != nil {
		return *gate.refusal, nil
	}
	markNetwork(c, gate.analysis)
	if box.build(c, network); box.err != nil {
		return tool.Result{}, tool.Refusef("the command could not be confined, so it did not run: %v. It can run outside the sandbox with sandbox: false (the user is asked)", box.err)
	}
	spec := shell.Spec{Command: gate.run, Dir: c.Env.Workspace.Primary(), Timeout: timeout, Detaches: gate.analysis.Detaches, Sandbox: box.spec}
	if a.Background {
		return startJob(c, spec, box)
	}
	return runForeground(ctx, c, spec, clamped, box, gate, want)
}

// runRequest is what a call asks of the sandbox.
type runRequest struct {
	// network: the call asks for network access.
	network bool
	// confined: the command runs in the sandbox (sandbox: false clears it).
	confined bool
	// background: the command runs as a background job.
	background  bool
	description string
}

// commandBox is how one command is confined: the sandbox's spec (nil
// when it runs unconfined), and why it is less than the full sandbox.
type commandBox struct {
	level sandbox.Level
	spec  *sandbox.Spec
	// outside: the call asked to run outside the sandbox.
	outside bool
	// why says why the level is less than full ("" when full, or when
	// the call asked to run outside).
	why string
	// capture: the command writes into overlay layers of its own, which
	// are taken in when it ends (see tool.Call.TakeIn); uncaptured says
	// why not, when it is not.
	capture    bool
	uncaptured string
	err        error
}

// chooseLevel picks the level a command runs at (shellSandbox and what
// this machine passed).
func chooseLevel(ctx context.Context, c *tool.Call, confined bool) commandBox {
	if !confined {
		return commandBox{level: sandbox.LevelNone, outside: true}
	}
	set := c.Env.Settings.Sandbox
	var b commandBox
	if set.Mode == sandbox.SettingOff {
		b.level, b.why = sandbox.LevelNone, "the shellSandbox setting is off"
		return b
	}
	st, ok := sandbox.Detected(ctx)
	b.level = sandbox.Choose(set.Mode, st)
	switch {
	case !ok:
		b.why = "the call ended before the sandbox's probe did"
	case set.Mode == sandbox.SettingLandlock && b.level == sandbox.LevelLandlock:
		b.why = "the shellSandbox setting asks for landlock"
	case b.level != sandbox.LevelFull:
		b.why = st.Why
	}
	return b
}

// captures says whether the command's writes are taken in through the
// overlay, and records why not when they are not: only a foreground
// command at the full level, in a session with the project's state
// folder, is.
func (b *commandBox) captures(c *tool.Call, want runRequest) bool {
	switch {
	case b.outside:
		b.uncaptured = "it ran outside the sandbox"
	case b.level != sandbox.LevelFull:
		b.uncaptured = b.why
		if b.uncaptured == "" {
			b.uncaptured = "this level of the sandbox has none"
		}
	case want.background:
		b.uncaptured = "background jobs write the workspace directly"
	case c.Env.Layers == "":
		// No project state (a test's or a benchmark's session): nothing is
		// undoable here anyway, so there is nothing to say.
	default:
		return true
	}
	return false
}

// build makes the spec of a confined command.
func (b *commandBox) build(c *tool.Call, network bool) {
	if !b.level.Confined() {
		return
	}
	folders := make([]sandbox.Folder, 0, len(c.Env.Workspace.Paths()))
	for _, p := range c.Env.Workspace.Paths() {
		folders = append(folders, sandbox.Folder{Path: p})
	}
	spec, err := sandbox.Build(sandbox.Options{Level: b.level, Folders: folders, Writable: c.Env.Settings.Sandbox.Writable, Network: network}, sandbox.DefaultLayout())
	if err != nil {
		b.err = err
		return
	}
	b.spec = &spec
}

// notes says, for the model, how the command was confined when that is
// less than the full sandbox.
func (b commandBox) notes() []string {
	switch {
	case b.outside:
		return []string{"it ran outside the sandbox, with all of the user's rights"}
	case b.level == sandbox.LevelNone:
		return []string{"no sandbox: " + b.why + "; the command ran with all of the user's rights"}
	case b.level == sandbox.LevelLandlock:
		return []string{"sandbox level landlock, not full (" + b.why + "): writes were confined to the workspace, TMPDIR and the build caches, and the home folder was unreadable, but there was no private /tmp"}
	case b.level == sandbox.LevelSeatbelt:
		return []string{"sandbox: macOS Seatbelt (writes confined to the workspace, TMPDIR and the build caches; the home folder unreadable)"}
	}
	return nil
}

// markNetwork records that the request reads content from outside when a
// command evidently reaches the network (curl, git fetch, npm install…) or
// runs programs known only when it runs: what it prints may carry words
// that are not the user's, so memory writes later in the request ask.
func markNetwork(c *tool.Call, a *cmdline.Analysis) {
	if len(a.Network) == 0 && a.Unknowable == "" {
		return
	}
	c.MarkUntrusted(commandSource + oneLine(a.Command, 100))
}

// commandSource starts the untrusted mark of a command's output.
const commandSource = "shell command: "

// webContent keeps, of what a request has read from outside, what the
// model read itself (web pages, search results), which the network rule
// for commands answers to: a command's own network access was approved
// (or allowed by the mode) for what it is.
func webContent(sources []string) []string {
	var out []string
	for _, s := range sources {
		if !strings.HasPrefix(s, commandSource) {
			out = append(out, s)
		}
	}
	return out
}

// commandTimeout reads the timeout argument. A background job has no
// timeout unless the call gives one.
func commandTimeout(a shellArgs, def time.Duration) (time.Duration, bool, error) {
	if a.Background && a.Timeout == nil {
		return 0, false, nil
	}
	return shell.Timeout(a.Timeout, def)
}

// allocateLayers makes a command's overlay layers (a variable for tests).
var allocateLayers = overlay.Allocate

func runForeground(ctx context.Context, c *tool.Call, spec shell.Spec, clamped bool, box commandBox, gate commandGate, want runRequest) (tool.Result, error) {
	var set *overlay.Set
	if box.capture {
		layers, err := allocateLayers(c.Env.Layers, c.Env.Workspace.Paths())
		if err != nil {
			return tool.Failf("Tether could not make the layers that keep what the command writes (%v), so the command did not run. Tell the user.", err), fmt.Errorf("making a command's overlay layers under %s: %w", c.Env.Layers, err)
		}
		// Whatever happens to the command or to taking it in, its layers go.
		defer func() {
			if err := layers.Remove(); err != nil {
				c.Log().Warn("removing a command's overlay layers", "path", c.Env.Layers, "err", err)
			}
		}()
		set = layers
		for _, l := range set.Layers {
			spec.Overlays = append(spec.Overlays, sandbox.Folder{Path: l.Folder, Upper: l.Upper, Work: l.Work})
		}
	}
	out := shell.NewCapture(max(c.Budget.OutputChars()-outputReserve, 1000))
	outcome, err := runSpec(ctx, c, spec, out)
	if err != nil && set != nil && errors.Is(err, sandbox.ErrSetup) {
		// The overlay could not be mounted here (a workspace folder or a
		// layer on a file system overlayfs does not take): the command did
		// not run. It runs without it, asked first as such a command is.
		c.Log().Warn("a command's overlay could not be set up; it runs without one", "path", c.Env.Layers, "err", err)
		box.capture, box.uncaptured, set, spec.Overlays = false, "its overlay could not be set up here ("+oneLine(err.Error(), 300)+")", nil, nil
		if gate.uncapturedAfterAll(ctx, c, want, box.uncaptured); gate.refusal != nil {
			return *gate.refusal, nil
		}
		out = shell.NewCapture(max(c.Budget.OutputChars()-outputReserve, 1000))
		outcome, err = runSpec(ctx, c, spec, out)
	}
	if err != nil {
		if errors.Is(err, sandbox.ErrSetup) {
			return tool.Failf("%v; the command did not run. It can run outside the sandbox with sandbox: false (the user is asked)", err), nil
		}
		return tool.Failf("the command could not be started: %v", err), nil
	}
	var b strings.Builder
	b.WriteString(showOutput(out))
	notes, failed := describeOutcome(outcome, true)
	if clamped {
		notes = append(notes, fmt.Sprintf("the timeout was lowered to %g seconds, the most a call may ask for", outcome.Timeout.Seconds()))
	}
	notes = append(notes, box.notes()...)
	if outcome.SandboxError != "" {
		notes = append(notes, "the sandbox could not start the command: "+outcome.SandboxError)
	}
	if len(outcome.GitRestored) > 0 {
		notes = append(notes, "the command changed git's hooks or configuration ("+strings.Join(outcome.GitRestored, ", ")+"), which the sandbox keeps as they were, since git runs them later outside it: they were put back. Ask the user to make such a change")
	}
	if outcome.Stop == shell.Exited && (outcome.ExitCode != 0 || outcome.Signal != "") && box.spec != nil {
		notes = append(notes, sandbox.Hints(out.String(), *box.spec)...)
	}
	if set == nil && !gate.readOnly && box.uncaptured != "" {
		notes = append(notes, strings.TrimSuffix(tool.NotCaptured(string(box.level), box.uncaptured), "."))
	}
	for _, n := range notes {
		b.WriteString("[" + n + "]\n")
	}
	res := tool.Result{IsError: failed}
	if set != nil {
		if outcome.Stop == shell.Cancelled {
			b.WriteString("None of what the command wrote was applied, since it was stopped before it ended: the workspace is as it was before it ran.\n")
		} else {
			in, err := c.TakeIn(ctx, set, spec.Command)
			b.WriteString(in.Content)
			res.Diff = in.Diff
			res.IsError = res.IsError || in.IsError
			if err != nil {
				res.Content = b.String()
				return res, err
			}
		}
	}
	res.Content = b.String()
	return res, nil
}

// runSpec runs a foreground command, through the job manager when there
// is one (its cgroup, its sandboxes started ahead).
func runSpec(ctx context.Context, c *tool.Call, spec shell.Spec, out *shell.Capture) (shell.Outcome, error) {
	if c.Env.Jobs != nil {
		return c.Env.Jobs.Run(ctx, spec, out)
	}
	return shell.Run(ctx, spec, out)
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

// startJob starts a background job and says how to follow it. A job is
// confined like a foreground command.
func startJob(c *tool.Call, spec shell.Spec, box commandBox) (tool.Result, error) {
	if c.Env.Jobs == nil {
		return tool.Failf("background jobs are not available here (this client runs no job manager). Run the command in the foreground, with a timeout if it is slow"), nil
	}
	job, err := c.Env.Jobs.Start(spec)
	if err != nil {
		if errors.Is(err, sandbox.ErrSetup) {
			return tool.Failf("%v; the job did not start. It can run outside the sandbox with sandbox: false (the user is asked)", err), nil
		}
		return tool.Failf("the job could not be started: %v", err), nil
	}
	limit := "It runs until it ends, is stopped with shell_kill, or Tether exits."
	if spec.Timeout > 0 {
		limit = fmt.Sprintf("It is stopped after %s, with shell_kill, or when Tether exits.", seconds(spec.Timeout))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Started %s in the background (pid %d). Its output goes to %s.\n"+
		"Check on it with shell_output {\"job_id\": %q}: status, exit code and the output new since the last check (pass filter to see only matching lines). %s\n",
		job.ID, job.Pid, job.LogPath, job.ID, limit)
	notes := box.notes()
	if box.uncaptured != "" {
		notes = append(notes, strings.TrimSuffix(tool.NotCaptured(string(box.level), box.uncaptured), "."))
	}
	for _, n := range notes {
		b.WriteString("[" + n + "]\n")
	}
	return tool.Text(b.String()), nil
}

// commandGate is the decision on one command line: run it as is, run it
// after asking, or refuse it.
type commandGate struct {
	analysis *cmdline.Analysis
	title    string
	// run is the command line to run (the allow-list may harden it).
	run string
	// network: the command runs with network access, because the call
	// asked for it or its command line evidently reaches the network.
	network bool
	// readOnly: the command line is a read-only form of the allow-list,
	// which changes no file.
	readOnly bool
	asked    bool
	why      string
	refusal  *tool.Result
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
// allow-list (and a trusted project's test runners) run without asking,
// in the sandbox and without network. A command whose writes are captured
// (box.capture: the full sandbox's overlay) and that has no network runs
// without asking in every mode: it cannot change anything but its layers,
// and what it wrote is reviewed, applied, staged or refused by the mode
// when it ends (see tool.Call.TakeIn). Plan and dry-run modes run nothing
// else, since the effects of such a command could be neither confined
// nor staged; everything else goes to Authorize: the programs the command
// would run, with their subcommands, and whether it asks for the network
// or to run outside the sandbox.
func gateCommand(ctx context.Context, c *tool.Call, analysis *cmdline.Analysis, want runRequest, box commandBox) commandGate {
	command := analysis.Command
	g := commandGate{analysis: analysis, title: "Run: " + oneLine(command, 100), run: command}
	g.network = want.network || len(g.analysis.Network) > 0
	allowed := g.analysis.AllowList(cmdline.Options{Trusted: c.Env.Trusted, Inside: func(p string) bool { return insideWorkspace(c, p) }})
	readOnlyMode := c.Env.Mode() == protocol.ModePlan || c.Env.Mode() == protocol.ModeDryRun
	captured := box.capture && !g.network
	if allowed.OK && (allowed.ReadOnly || !readOnlyMode || captured) && !g.network && want.confined {
		g.run, g.why, g.readOnly = allowed.Run, "on the allow-list", allowed.ReadOnly
		if !allowed.ReadOnly {
			g.why = "a test run in a trusted project"
		}
		return g
	}
	if captured {
		g.why = "sandboxed, without network; what it writes is taken in when it ends"
		return g
	}
	if readOnlyMode {
		why := allowed.Why
		switch {
		case !want.confined:
			why = "it asks to run outside the sandbox"
		case g.network:
			why = "it reaches the network"
		case allowed.OK:
			why = "it runs the project's code"
		}
		if box.uncaptured != "" && box.level.Confined() {
			why += " (and what it writes could not be held back here: " + box.uncaptured + ")"
		}
		r := tool.Failf("%s mode lets only read-only commands run (git status/diff/log/show, ls, rg, grep, find, cat, head, tail, wc, pwd, echo, with plain arguments and no output to files, in the sandbox and without network), and this one is not: %s. It did not run.", c.Env.Mode(), why)
		g.refusal = &r
		return g
	}
	g.authorize(ctx, c, want)
	return g
}

// authorize asks, as the mode and the saved rules say, before a command
// whose writes are not captured runs.
func (g *commandGate) authorize(ctx context.Context, c *tool.Call, want runRequest) {
	step := shellStep(c, g.analysis.Command, g.analysis, g.network, want)
	g.title = step.Request.Title
	v := c.Authorize(ctx, step)
	g.asked, g.why = v.Asked, "allowed by the permission mode or a saved rule"
	if !v.Allowed {
		g.refusal = &v.Refusal
		return
	}
	if v.Answer.Answer == protocol.AnswerAlways && !step.NoAlways {
		saveAlways(c, g.analysis, g.network)
	}
}

// uncapturedAfterAll is the gate of a command that was to run captured,
// unasked, when its overlay could not be set up (why): a read-only form
// of the allow-list runs as it is; in plan and dry-run modes nothing else
// does; otherwise it is asked like any command whose writes go straight
// to the workspace.
func (g *commandGate) uncapturedAfterAll(ctx context.Context, c *tool.Call, want runRequest, why string) {
	if g.readOnly || g.asked {
		return
	}
	if m := c.Env.Mode(); m == protocol.ModePlan || m == protocol.ModeDryRun {
		r := tool.Failf("%s mode lets a command that may change files run only where its writes are held back, and here they could not be (%s). It did not run.", m, why)
		g.refusal = &r
		return
	}
	g.authorize(ctx, c, want)
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

// shellStep builds the approval for a command. "Always" saves one rule
// per program the approval names, with its subcommand for programs that
// have them (git status, npm test), and with or without network access
// as asked: from then on a later command is let through only when every
// program it runs, as it runs it, has a rule (permission.Rules.Allows).
// "Always" is not offered for a command whose programs cannot be known,
// for one that runs outside the sandbox, nor for network access in a
// request that has read content from outside (the web): those ask every
// time, in every mode but bypass, and the last even in bypass.
func shellStep(c *tool.Call, command string, a *cmdline.Analysis, network bool, want runRequest) tool.Step {
	confined := want.confined
	req := protocol.ApprovalRequestParams{Kind: protocol.ApprovalShell, Command: command, Network: network, Sandbox: &confined, Description: want.description}
	step := tool.Step{Request: req, Action: permission.Action{Tool: "shell", Changes: true, Outside: true}}
	// Outside: a command can reach any file, so acceptEdits (which allows
	// changes inside the workspace) must not let it through unasked.
	names := make([]string, len(a.Invocations))
	for i, v := range a.Invocations {
		names[i] = v.String()
	}
	how := ""
	switch {
	case !confined:
		how = " outside the sandbox"
	case network:
		how = " with network access"
	}
	what := "Run" + how
	if len(names) > 0 {
		what = fmt.Sprintf("Run %s%s", joinAnd(names), how)
	}
	step.Request.Title = what + ": " + oneLine(command, 100)
	if want.description != "" {
		step.Request.Title = oneLine(want.description, maxDescription) + " (" + strings.ToLower(what[:1]) + what[1:] + "): " + oneLine(command, 100)
	}
	var unscoped []string
	for _, v := range a.Invocations {
		if v.Unscoped {
			unscoped = append(unscoped, v.Program)
		}
	}
	untrusted := webContent(c.Untrusted())
	switch {
	case !confined:
		// Every time, with the full command line: no rule can stand for
		// a command that runs with all of the user's rights.
		step.NoAlways = true
	case network && len(untrusted) > 0:
		// The request has read web content, which could be steering the
		// command: network access is asked for each time, in every
		// mode, whatever was saved.
		step.Action.Untrusted = true
		step.Request.Untrusted = untrusted
		step.NoAlways = true
	case a.Unknowable != "":
		step.Request.AlwaysScope = "this command only: the programs it runs cannot be known before it runs (" + a.Unknowable + ")"
	case len(a.Invocations) == 0:
		step.Request.AlwaysScope = "this command only: it runs no program, only shell builtins"
	case len(unscoped) > 0:
		step.Request.AlwaysScope = "this command only: " + joinAnd(unscoped) + " is not given a plain subcommand first, so no rule narrower than the whole program could stand for it"
	default:
		step.Runs = a.Invocations
		scope := "run " + joinAnd(names) + " without asking in this project"
		if network {
			scope = "run " + joinAnd(names) + " with network access without asking in this project"
		} else {
			scope += ", in the sandbox, without network access"
		}
		step.Request.AlwaysScope = scope
	}
	return step
}

// saveAlways records an "always" answer: one rule per program and
// subcommand, with or without network access.
func saveAlways(c *tool.Call, a *cmdline.Analysis, network bool) {
	if a.Unknowable != "" || c.Env.Rules == nil {
		return
	}
	for _, v := range a.Invocations {
		if v.Unscoped {
			return
		}
	}
	for _, v := range a.Invocations {
		rule := permission.ShellRule(v, network)
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
