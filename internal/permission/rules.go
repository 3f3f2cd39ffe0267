package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/shell/cmdline"
	"github.com/tether-dev/tether/protocol"
)

// Rule is one "always" answer, scoped to exactly what the user saw: a
// program and its subcommand for a shell command (with or without network
// access), a host for a fetch, one folder for a path outside the
// workspace, or file changes inside the workspace.
type Rule struct {
	Kind    protocol.ApprovalKind `json:"kind"`
	Program string                `json:"program,omitempty"`
	// Subcommand narrows a shell rule to one subcommand of Program ("git
	// status"). Empty covers every way of running the program: a program
	// without subcommands, or a rule saved before subcommands were told
	// apart, which keeps working as it did.
	Subcommand string `json:"subcommand,omitempty"`
	// Network says whether a shell rule covers runs with network access
	// (true) or only runs without (false). Absent, as in rules saved
	// before commands ran in a sandbox, it covers both, as it did.
	Network *bool  `json:"network,omitempty"`
	Host    string `json:"host,omitempty"`
	Dir     string `json:"dir,omitempty"`
	// Match and NotMatch are examples, for a shell rule: command lines it
	// must allow and command lines it must not. They are checked when the
	// rules load; a rule that fails its own examples allows nothing.
	Match    []string  `json:"match,omitempty"`
	NotMatch []string  `json:"notMatch,omitempty"`
	Added    time.Time `json:"added"`
	// Broken says why the rule failed its examples; it then allows nothing.
	Broken string `json:"-"`
}

// Wire is the rule as the wire protocol shows it (permissions/list).
func (r Rule) Wire() protocol.PermissionRule {
	return protocol.PermissionRule{Kind: r.Kind, Program: r.Program, Subcommand: r.Subcommand, Network: r.Network, Host: r.Host, Dir: r.Dir,
		Added: r.Added, Description: "always " + r.String(), Disabled: r.Broken}
}

// RuleFrom is the rule a wire PermissionRule names (for removing it).
func RuleFrom(p protocol.PermissionRule) Rule {
	return Rule{Kind: p.Kind, Program: p.Program, Subcommand: p.Subcommand, Network: p.Network, Host: p.Host, Dir: p.Dir}
}

// ShellRule is the rule an "always" saves for one invocation of a program,
// with or without network access.
func ShellRule(v cmdline.Invocation, network bool) Rule {
	return Rule{Kind: protocol.ApprovalShell, Program: v.Program, Subcommand: v.Subcommand, Network: &network}
}

// String describes a rule for people.
func (r Rule) String() string {
	switch r.Kind {
	case protocol.ApprovalShell:
		what := "run " + r.Program
		switch {
		case r.Subcommand != "":
			what += " " + r.Subcommand
		case cmdline.HasSubcommands(r.Program):
			what += " (any subcommand)"
		}
		switch {
		case r.Network == nil:
			what += " (with or without network access)"
		case *r.Network:
			what += " with network access"
		}
		if r.Broken != "" {
			what += " [disabled: " + r.Broken + "]"
		}
		return what
	case protocol.ApprovalFetch:
		return "fetch from " + r.Host
	case protocol.ApprovalOutside:
		return "read in " + r.Dir + " (its own files; not its subfolders)"
	case protocol.ApprovalEdit:
		return "change files inside the workspace"
	case protocol.ApprovalMemory:
		return "write project memory"
	}
	return string(r.Kind)
}

func (r Rule) same(o Rule) bool {
	return r.Kind == o.Kind && r.Program == o.Program && r.Subcommand == o.Subcommand &&
		(r.Network == nil) == (o.Network == nil) && (r.Network == nil || *r.Network == *o.Network) &&
		r.Host == o.Host && r.Dir == o.Dir
}

// Same reports whether two rules allow the same thing (their dates and
// examples aside).
func (r Rule) Same(o Rule) bool { return r.same(o) }

// allowsRun reports whether a shell rule covers one invocation, run with
// or without network access.
func (r Rule) allowsRun(v cmdline.Invocation, network bool) bool {
	if r.Kind != protocol.ApprovalShell || r.Broken != "" || r.Program != v.Program {
		return false
	}
	if r.Subcommand != "" && (v.Unscoped || v.Subcommand != r.Subcommand) {
		return false
	}
	return !network || r.Network == nil || *r.Network
}

// allowsCommand reports whether the rule alone covers every program a
// command line runs.
func (r Rule) allowsCommand(command string) bool {
	a := cmdline.Analyze(command)
	if a.Unknowable != "" || len(a.Invocations) == 0 {
		return false
	}
	network := len(a.Network) > 0
	for _, v := range a.Invocations {
		if !r.allowsRun(v, network) {
			return false
		}
	}
	return true
}

// checkExamples marks a rule that does not do what its examples say.
func (r *Rule) checkExamples() {
	if r.Kind != protocol.ApprovalShell {
		return
	}
	for _, m := range r.Match {
		if !r.allowsCommand(m) {
			r.Broken = fmt.Sprintf("its example %q should be allowed and is not", m)
			return
		}
	}
	for _, m := range r.NotMatch {
		if r.allowsCommand(m) {
			r.Broken = fmt.Sprintf("its example %q should not be allowed and is", m)
			return
		}
	}
}

// Rules is a project's saved "always" answers, kept in allow.json so they
// survive a restart. Safe for concurrent use. The file is the truth: it is
// read again whenever another process (another window, `tether allow`)
// has changed it, before a rule is judged, added or removed, so a rule
// removed anywhere stops allowing everywhere and never comes back. Every
// change is written atomically.
type Rules struct {
	mu    sync.Mutex
	path  string
	rules []Rule
	// stamp identifies the version of the file the rules were read from.
	stamp fileStamp
}

// fileStamp tells one version of a file from another: each atomic write
// makes a new file.
type fileStamp struct {
	ino, size int64
	mod       time.Time
	exists    bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{ino: inode(fi), size: fi.Size(), mod: fi.ModTime(), exists: true}
}

// refresh reads the file again if it changed since it was read. A file
// that cannot be read now keeps the rules read before.
func (r *Rules) refresh() {
	if r.path == "" {
		return
	}
	st := stampOf(r.path)
	if st == r.stamp {
		return
	}
	rules, err := readRules(r.path)
	if err != nil {
		return
	}
	r.rules, r.stamp = rules, st
}

// LoadRules reads path (a missing file is an empty set). A corrupt file is
// an error rather than silently treated as empty, which would lose rules.
func LoadRules(path string) (*Rules, error) {
	r := &Rules{path: path}
	st := stampOf(path)
	rules, err := readRules(path)
	if err != nil {
		return nil, err
	}
	r.rules, r.stamp = rules, st
	return r, nil
}

func readRules(path string) ([]Rule, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rules []Rule `json:"rules"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid: %v (fix or delete it; `tether allow --reset` clears it)", path, err)
	}
	for i := range doc.Rules {
		doc.Rules[i].checkExamples()
	}
	return doc.Rules, nil
}

// Path is where the rules are saved.
func (r *Rules) Path() string { return r.path }

// List returns the rules, oldest first.
func (r *Rules) List() []Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	return append([]Rule(nil), r.rules...)
}

// Add saves a rule (once). A folder rule must name an absolute folder.
func (r *Rules) Add(rule Rule) error {
	if rule.Kind == protocol.ApprovalOutside {
		if rule.Dir == "" || !filepath.IsAbs(rule.Dir) {
			return fmt.Errorf("a rule for a folder outside the workspace needs the folder's absolute path, not %q", rule.Dir)
		}
		rule.Dir = filepath.Clean(rule.Dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	for _, x := range r.rules {
		if x.same(rule) {
			return nil
		}
	}
	if rule.Added.IsZero() {
		rule.Added = time.Now().UTC().Truncate(time.Second)
	}
	r.rules = append(r.rules, rule)
	return r.save()
}

// Remove forgets the saved rules that allow what rule allows (see Same),
// and reports how many there were.
func (r *Rules) Remove(rule Rule) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	kept := r.rules[:0:0]
	for _, x := range r.rules {
		if !x.same(rule) {
			kept = append(kept, x)
		}
	}
	n := len(r.rules) - len(kept)
	if n == 0 {
		return 0, nil
	}
	r.rules = kept
	return n, r.save()
}

// Reset forgets every rule.
func (r *Rules) Reset() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules = nil
	if r.path == "" {
		return nil
	}
	if err := os.Remove(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	r.stamp = fileStamp{}
	return nil
}

func (r *Rules) save() error {
	if r.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(struct {
		Rules []Rule `json:"rules"`
	}{r.rules}, "", "  ")
	if err != nil {
		return err
	}
	if err := fsatomic.WriteFile(r.path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	r.stamp = stampOf(r.path)
	return nil
}

// Allows reports whether a saved rule covers an approval request; for a
// command, runs are its programs with their subcommands.
func (r *Rules) Allows(req protocol.ApprovalRequestParams, runs []cmdline.Invocation) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	switch req.Kind {
	case protocol.ApprovalShell:
		// A command outside the sandbox is asked every time; otherwise
		// every program the command would run must be allowed, with the
		// network access it asks for.
		if len(runs) == 0 || req.Sandbox != nil && !*req.Sandbox {
			return false
		}
		for _, v := range runs {
			if !r.allowsRun(v, req.Network) {
				return false
			}
		}
		return true
	case protocol.ApprovalFetch:
		return r.has(Rule{Kind: protocol.ApprovalFetch, Host: strings.ToLower(req.Host)})
	case protocol.ApprovalOutside:
		// Judged by AllowsDir, on the real folder the step reads in.
		return false
	}
	return r.has(Rule{Kind: req.Kind})
}

// AllowsDir reports whether a saved rule lets a tool read in dir, a real
// folder outside the workspace (symlinks resolved): a rule covers exactly
// the folder it names, not its parent, its subfolders, or a sibling whose
// name starts the same.
func (r *Rules) AllowsDir(dir string) bool {
	if r == nil || dir == "" {
		return false
	}
	dir = filepath.Clean(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh()
	for _, x := range r.rules {
		if x.Kind == protocol.ApprovalOutside && x.Dir != "" && filepath.Clean(x.Dir) == dir {
			return true
		}
	}
	return false
}

func (r *Rules) allowsRun(v cmdline.Invocation, network bool) bool {
	for _, x := range r.rules {
		if x.allowsRun(v, network) {
			return true
		}
	}
	return false
}

func (r *Rules) has(rule Rule) bool {
	for _, x := range r.rules {
		if x.same(rule) {
			return true
		}
	}
	return false
}
