package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/tether-dev/tether/protocol"
)

// Registry is the set of tools a session offers, in a stable order. It is
// the one source of truth for tool names, descriptions and schemas: the
// daemon's tools/list, the CLI's `tether tools` and the extension's
// package.json are all generated from it.
type Registry struct {
	tools  []Tool
	byName map[string]Tool
}

// NewRegistry builds a registry; names must be unique.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		name := t.Name()
		if _, dup := r.byName[name]; dup {
			panic("duplicate tool " + name)
		}
		r.tools = append(r.tools, t)
		r.byName[name] = t
	}
	return r
}

// Lookup finds a tool by name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Tools lists every tool, in registry order.
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Infos describes every tool, in registry order, with the numbers s puts
// in force (nil: the defaults).
func (r *Registry) Infos(s *Settings) []protocol.ToolInfo {
	out := make([]protocol.ToolInfo, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Info(s)
	}
	return out
}

// Offered describes the tools available in env: a tool that needs what the
// client cannot do (diagnostics, questions) is left out.
func (r *Registry) Offered(env *Env) []protocol.ToolInfo {
	var out []protocol.ToolInfo
	for _, t := range r.tools {
		if offered(t, env) {
			out = append(out, t.Info(&env.Settings))
		}
	}
	return out
}

func offered(t Tool, env *Env) bool {
	c, ok := t.(Conditional)
	return !ok || c.Available(env)
}

// Names lists the tool names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for _, t := range r.tools {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return names
}

// Invoke runs one call with the guardrails every tool shares: an unknown
// name is answered with the list of real ones, an identical call repeated
// a third time is refused, a panicking tool becomes an error result instead
// of a dead daemon, a fault below the tool is logged and told to the model
// as what it is, and no result exceeds the call's output budget.
//
// Every call that is not a preview is reported as activity (running, then
// how it ended) where the client shows it, and attached to the plan's step
// in progress.
func (r *Registry) Invoke(ctx context.Context, c *Call) (res Result) {
	c.Registry = r
	if !c.Prepare {
		act := r.begin(ctx, c)
		defer func() { act.end(ctx, res) }()
	}
	t, ok := r.byName[c.Name]
	if !ok {
		return Failf("there is no tool named %q. The tools are: %s.", c.Name, strings.Join(r.Names(), ", "))
	}
	if !offered(t, c.Env) {
		return Failf("%s is not available here: the client did not offer what it needs (see the tool's description)", c.Name)
	}
	if !c.Prepare && !isRepeatable(t) {
		if err := c.Session.CheckRepeat(c.Name, c.Args); err != nil {
			return outcome(c, Result{}, err)
		}
		defer func() {
			if c.declined { // the user said skip or no: it did not happen
				c.Session.Uncount(c.Name, c.Args)
			}
		}()
	}
	defer func() {
		if p := recover(); p != nil {
			c.Log().Error("tool panicked", "panic", p, "stack", string(debug.Stack()))
			res = Failf("%s failed with an internal error (%v). This is a bug in Tether, not in your call; try another way.", c.Name, p).WithStatus(protocol.StatusFailed)
		}
	}()
	start := time.Now()
	res, err := t.Run(ctx, c)
	if !c.Prepare && !IsReadOnly(t) {
		// A changing call may change files by itself (a shell command):
		// when it ran explains a file changed meanwhile.
		c.Env.Changes.noteCall(c, t, start, time.Now())
	}
	if err != nil {
		res = outcome(c, res, err)
	}
	if max := c.Budget.OutputChars(); len(res.Content) > max {
		res.Content = CapHeadTail(res.Content, max)
	}
	return res
}

// outcome makes the result of a call whose tool returned an error. A
// Refusal is advice for the model: its text becomes the IsError result.
// Anything else is a fault of the machine below the tool (see fault).
func outcome(c *Call, res Result, err error) Result {
	var r *Refusal
	if errors.As(err, &r) {
		res.IsError = true
		if res.Content == "" {
			res.Content = r.Error()
		}
		return res
	}
	return fault(c, res, err)
}

// fault logs an infrastructure fault at error level, with the operation
// and path it names, and makes the model's result say what it is: Tether
// failed, not the call. A tool that knows more (what was and was not
// written) says so in res; otherwise a plain sentence.
func fault(c *Call, res Result, err error) Result {
	attrs := []any{"err", err}
	if op, path := faultPlace(err); op != "" {
		attrs = append(attrs, "op", op, "path", path)
	}
	c.Log().Error("tool fault", attrs...)
	res.IsError = true
	res.Status = protocol.StatusFailed
	if res.Content == "" {
		res.Content = fmt.Sprintf("Tether failed: %s could not finish because of a fault on this machine, not in your call (%v). Tell the user; retrying will likely fail the same way.", c.Name, err)
	}
	return res
}

// faultPlace is the operation and path a fault names, when it comes from
// the file system.
func faultPlace(err error) (op, path string) {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Op, pe.Path
	case errors.As(err, &le):
		return le.Op, le.Old + " -> " + le.New
	}
	return "", ""
}

// Repeatable is implemented by tools whose identical calls rightly give
// new answers (polling a background job), which the repeat guard must let
// through.
type Repeatable interface{ Repeatable() bool }

func isRepeatable(t Tool) bool {
	r, ok := t.(Repeatable)
	return ok && r.Repeatable()
}

// IsReadOnly reports whether t changes nothing, without rendering its
// description.
func IsReadOnly(t Tool) bool {
	if r, ok := t.(interface{ readOnly() bool }); ok {
		return r.readOnly()
	}
	return t.Info(nil).ReadOnly
}

// Previews reports whether a read-only tool answers a preview by itself
// (see Def.Previews).
func Previews(t Tool) bool {
	p, ok := t.(interface{ previews() bool })
	return ok && p.previews()
}

// ChangesFiles reports whether t's calls are changes of files whose
// results carry a Status (see Def.ChangesFiles).
func ChangesFiles(t Tool) bool {
	c, ok := t.(interface{ changesFiles() bool })
	return ok && c.changesFiles()
}

// Conditional is implemented by tools offered only in some environments
// (problems needs an editor that sends diagnostics).
type Conditional interface {
	Available(env *Env) bool
}

// Unavailable says why t is not offered in env, when it is not: in the
// tool's own words where it has them.
func Unavailable(t Tool, env *Env) (string, bool) {
	if offered(t, env) {
		return "", false
	}
	if e, ok := t.(interface{ UnavailableReason() string }); ok && e.UnavailableReason() != "" {
		return e.UnavailableReason(), true
	}
	return "the client does not offer what it needs", true
}

// writesPlan says whether t is the plan itself (todo), whose calls are not
// listed as activity of a step.
func writesPlan(t Tool) bool {
	p, ok := t.(interface{ WritesPlan() bool })
	return ok && p.WritesPlan()
}
