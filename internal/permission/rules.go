package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/protocol"
)

// Rule is one "always" answer, scoped to exactly what the user saw: a
// program for a shell command, a host for a fetch, one folder for a path
// outside the workspace, or file changes inside the workspace.
type Rule struct {
	Kind    protocol.ApprovalKind `json:"kind"`
	Program string                `json:"program,omitempty"`
	Host    string                `json:"host,omitempty"`
	Dir     string                `json:"dir,omitempty"`
	Added   time.Time             `json:"added"`
}

// String describes a rule for people.
func (r Rule) String() string {
	switch r.Kind {
	case protocol.ApprovalShell:
		return "run " + r.Program
	case protocol.ApprovalFetch:
		return "fetch from " + r.Host
	case protocol.ApprovalOutside:
		return "use files in " + r.Dir
	case protocol.ApprovalEdit:
		return "change files inside the workspace"
	case protocol.ApprovalMemory:
		return "write project memory"
	}
	return string(r.Kind)
}

func (r Rule) same(o Rule) bool {
	return r.Kind == o.Kind && r.Program == o.Program && r.Host == o.Host && r.Dir == o.Dir
}

// Rules is a project's saved "always" answers, kept in allow.json so they
// survive a restart. Safe for concurrent use; every change is written
// atomically and merged with what another process saved meanwhile.
type Rules struct {
	mu    sync.Mutex
	path  string
	rules []Rule
}

// LoadRules reads path (a missing file is an empty set). A corrupt file is
// an error rather than silently treated as empty, which would lose rules.
func LoadRules(path string) (*Rules, error) {
	r := &Rules{path: path}
	rules, err := readRules(path)
	if err != nil {
		return nil, err
	}
	r.rules = rules
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
	return doc.Rules, nil
}

// Path is where the rules are saved.
func (r *Rules) Path() string { return r.path }

// List returns the rules, oldest first.
func (r *Rules) List() []Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Rule(nil), r.rules...)
}

// Add saves a rule (once).
func (r *Rules) Add(rule Rule) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Merge with what another window may have saved since we loaded.
	if disk, err := readRules(r.path); err == nil {
		r.rules = mergeRules(r.rules, disk)
	}
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
	return nil
}

func mergeRules(a, b []Rule) []Rule {
	out := append([]Rule(nil), a...)
	for _, x := range b {
		dup := false
		for _, y := range out {
			dup = dup || x.same(y)
		}
		if !dup {
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Added.Before(out[j].Added) })
	return out
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
	return fsatomic.WriteFile(r.path, append(data, '\n'), 0o600)
}

// Allows reports whether a saved rule covers an approval request.
func (r *Rules) Allows(req protocol.ApprovalRequestParams, programs []string) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch req.Kind {
	case protocol.ApprovalShell:
		// Every program the command would run must be allowed.
		if len(programs) == 0 {
			return false
		}
		for _, p := range programs {
			if !r.has(Rule{Kind: protocol.ApprovalShell, Program: p}) {
				return false
			}
		}
		return true
	case protocol.ApprovalFetch:
		return r.has(Rule{Kind: protocol.ApprovalFetch, Host: strings.ToLower(req.Host)})
	case protocol.ApprovalOutside:
		for _, x := range r.rules {
			if x.Kind == protocol.ApprovalOutside && (req.Path == x.Dir || strings.HasPrefix(req.Path, x.Dir+string(filepath.Separator))) {
				return true
			}
		}
		return false
	}
	return r.has(Rule{Kind: req.Kind})
}

func (r *Rules) has(rule Rule) bool {
	for _, x := range r.rules {
		if x.same(rule) {
			return true
		}
	}
	return false
}
