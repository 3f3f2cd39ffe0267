package tools

import (
	"context"
	"runtime/debug"
	"sort"
	"strings"

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
		name := t.Info().Name
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

// Infos describes every tool, in registry order.
func (r *Registry) Infos() []protocol.ToolInfo {
	out := make([]protocol.ToolInfo, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.Info()
	}
	return out
}

// Offered describes the tools available in env: a tool that needs what the
// client cannot do (diagnostics, questions) is left out.
func (r *Registry) Offered(env *Env) []protocol.ToolInfo {
	var out []protocol.ToolInfo
	for _, t := range r.tools {
		if offered(t, env) {
			out = append(out, t.Info())
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
		names = append(names, t.Info().Name)
	}
	sort.Strings(names)
	return names
}

// Invoke runs one call with the guardrails every tool shares: an unknown
// name is answered with the list of real ones, an identical call repeated
// a third time is refused, a panicking tool becomes an error result instead
// of a dead daemon, and no result exceeds the call's output budget.
func (r *Registry) Invoke(ctx context.Context, c *Call) (res Result) {
	t, ok := r.byName[c.Name]
	if !ok {
		return Errorf("there is no tool named %q. The tools are: %s.", c.Name, strings.Join(r.Names(), ", "))
	}
	if !offered(t, c.Env) {
		return Errorf("%s is not available here: the client did not offer what it needs (see the tool's description)", c.Name)
	}
	if !c.Prepare && !isRepeatable(t) {
		if err := c.Session.CheckRepeat(c.Name, c.Args); err != nil {
			return Errorf("%v", err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			if c.Env.Log != nil {
				c.Env.Log.Error("tool panicked", "tool", c.Name, "panic", p, "stack", string(debug.Stack()))
			}
			res = Errorf("%s failed with an internal error (%v). This is a bug in Tether, not in your call; try another way.", c.Name, p)
		}
	}()
	res = t.Run(ctx, c)
	if max := c.Budget.OutputChars(); len(res.Content) > max {
		res.Content = CapHeadTail(res.Content, max)
	}
	return res
}

// Repeatable is implemented by tools whose identical calls rightly give
// new answers (polling a background job), which the repeat guard must let
// through.
type Repeatable interface{ Repeatable() bool }

func isRepeatable(t Tool) bool {
	r, ok := t.(Repeatable)
	return ok && r.Repeatable()
}

// cancelled is the result of a call stopped by its caller.
func cancelled(what string) Result {
	return Errorf("%s was cancelled; no partial result is returned", what)
}
