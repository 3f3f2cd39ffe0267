package tool

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/internal/textfile"
)

// Lines the agent saw that did not change keep their place, at their new
// numbers; changed and removed lines drop out.
func TestMapUnchanged(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n" // 16 lines
	for _, tc := range []struct {
		name, new string
		seen      []textfile.LineRange
		want      string
	}{
		{"a line inserted after 5", strings.Replace(old, "e\n", "e\nE2\n", 1), []textfile.LineRange{{Start: 1, End: 16}}, "1-5, 7-17"},
		{"line 3 removed", strings.Replace(old, "c\n", "", 1), []textfile.LineRange{{Start: 1, End: 16}}, "1-15"},
		{"line 8 changed", strings.Replace(old, "h\n", "H\n", 1), []textfile.LineRange{{Start: 1, End: 16}}, "1-7, 9-16"},
		{"only part seen", strings.Replace(old, "b\n", "b\nb2\nb3\n", 1), []textfile.LineRange{{Start: 10, End: 12}}, "12-14"},
		{"two regions", strings.Replace(strings.Replace(old, "b\n", "", 1), "o\n", "o\no2\n", 1), []textfile.LineRange{{Start: 1, End: 16}}, "1-14, 16"},
	} {
		var seen textfile.LineSet
		for _, r := range tc.seen {
			seen.Add(r.Start, r.End)
		}
		got := mapUnchanged(seen, diff.Hunks([]byte(old), []byte(tc.new)))
		if s := textfile.FormatLineRanges(got.Ranges()); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
	}
}

type stamp struct {
	fs.FileInfo
	mod  time.Time
	size int64
}

func (s stamp) ModTime() time.Time { return s.mod }
func (s stamp) Size() int64        { return s.size }

// Who changed a file: Tether's own write by another agent (matched by its
// exact time and size), the editor's save near the file's time, a changing
// call that ran then (this request's first); otherwise outside Tether.
func TestExplain(t *testing.T) {
	now := time.Now()
	parent := NewSession()
	child := NewChildSession(parent)
	other := NewSession()
	l := NewChangeLog()
	fi := stamp{mod: now.Add(-10 * time.Second), size: 42}

	if got := l.Explain("/w/a.go", fi, parent, "r1", now); !strings.HasPrefix(got, "outside Tether") {
		t.Errorf("nothing known: %s", got)
	}
	l.noteCall(&Call{Name: "shell", RequestID: "r0", Session: other}, nil, now.Add(-60*time.Second), now.Add(-9*time.Second))
	if got := l.Explain("/w/a.go", fi, parent, "r1", now); !strings.Contains(got, "the shell call of request r0") {
		t.Errorf("another request's command: %s", got)
	}
	l.noteCall(&Call{Name: "shell", RequestID: "r1", Session: parent, Args: []byte(`{"command":"gofmt -w a.go"}`)}, describer{}, now.Add(-11*time.Second), now.Add(-10*time.Second))
	if got := l.Explain("/w/a.go", fi, parent, "r1", now); !strings.Contains(got, "the shell call of this request (Running: {\"command\":\"gofmt -w a.go\"}; it ended 10 seconds ago)") {
		t.Errorf("this request's command: %s", got)
	}
	l.NoteSave("/w/a.go", now.Add(-9*time.Second))
	if got := l.Explain("/w/a.go", fi, parent, "r1", now); got != "the user saved it in the editor 9 seconds ago" {
		t.Errorf("a save: %s", got)
	}
	l.noteWrite("/w/a.go", &Call{Name: "edit_file", Session: child}, "Edit a.go", fi)
	if got := l.Explain("/w/a.go", fi, parent, "r1", now); !strings.HasPrefix(got, "a sub-agent of yours (its Edit a.go call") {
		t.Errorf("a sub-agent's write: %s", got)
	}
	if got := l.Explain("/w/a.go", fi, child, "r1", now); strings.HasPrefix(got, "a sub-agent") {
		t.Errorf("the sub-agent's own write, seen from itself: %s", got)
	}
	if got := l.Explain("/w/a.go", fi, other, "r1", now); !strings.HasPrefix(got, "another agent") {
		t.Errorf("seen from another session: %s", got)
	}
	// A write that is not what the file holds now explains nothing.
	moved := stamp{mod: now.Add(-time.Second), size: 43}
	if got := l.Explain("/w/a.go", moved, parent, "r1", now); !strings.HasPrefix(got, "outside Tether") {
		t.Errorf("a later change: %s", got)
	}
	var none *ChangeLog
	if got := none.Explain("/w/a.go", fi, parent, "r1", now); !strings.HasPrefix(got, "outside Tether") {
		t.Errorf("the nil log: %s", got)
	}
}

// describer is a tool that describes a call by its arguments.
type describer struct{ Tool }

func (describer) Describe(args json.RawMessage) string { return "Running: " + string(args) }
