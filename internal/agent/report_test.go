package agent

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/diff"
)

func TestChangeSetSumsDiffsPerFile(t *testing.T) {
	var s changeSet
	s.add(diff.Unified("a/x.go", "b/x.go", []byte("a\nb\nc\n"), []byte("a\nB\nc\nd\n")))
	s.add(diff.Unified("/dev/null", "b/new.txt", nil, []byte("1\n2\n")))
	s.add(diff.Unified("a/x.go", "b/x.go", []byte("a\nB\nc\nd\n"), []byte("a\nB\n")))
	s.add(diff.Unified("a/old.txt", "/dev/null", []byte("gone\n"), nil))
	s.add("rename from m/a.txt\nrename to m/b.txt\n")
	got := s.list()
	want := []FileChange{
		{Path: "x.go", Kind: "changed", Stats: diff.Stats{Added: 2, Removed: 3}},
		{Path: "new.txt", Kind: "created", Stats: diff.Stats{Added: 2}},
		{Path: "old.txt", Kind: "deleted", Stats: diff.Stats{Removed: 1}},
		{Path: "m/b.txt", From: "m/a.txt", Kind: "moved"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A file a child created and then deleted is reported deleted, not created.
func TestChangeSetCreatedThenDeleted(t *testing.T) {
	var s changeSet
	s.add(diff.Unified("/dev/null", "b/t.txt", nil, []byte("x\n")))
	s.add(diff.Unified("a/t.txt", "/dev/null", []byte("x\n"), nil))
	if got := s.list(); len(got) != 1 || got[0].Kind != "deleted" {
		t.Errorf("got %+v", got)
	}
}

func TestReportSaysHowTheChildEnded(t *testing.T) {
	tests := []struct {
		name string
		o    Outcome
		want []string
		not  []string
	}{
		{"finished", Outcome{Mode: Inspect, Final: "It is in a.go:3.", Turns: 2, Calls: 1, Read: []string{"b.go", "a.go"}},
			[]string{"The inspect sub-agent finished after 2 model turns and 1 tool call.", "Its answer:\nIt is in a.go:3.", "Files it read: a.go, b.go"},
			[]string{"did not finish", "unfinished", "changed"}},
		{"stopped", Outcome{Mode: Work, Final: "half way", Turns: 3, Stopped: "it reached the turn limit: 3 model turns (the setting agentMaxTurns)",
			Changed: []FileChange{{Path: "a.go", Kind: "changed", Stats: diff.Stats{Added: 1, Removed: 2}}}},
			[]string{"did not finish: it reached the turn limit: 3 model turns", "Its last message:\nhalf way", "- a.go (+1 \u22122)", "one undo", "unfinished"},
			[]string{"Its answer"}},
		{"cancelled", Outcome{Mode: Work, Cancelled: true},
			[]string{"was cancelled", "It wrote no message.", "It changed no files"},
			[]string{"unfinished"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.o.Report()
			for _, w := range tt.want {
				if !strings.Contains(r, w) {
					t.Errorf("report lacks %q:\n%s", w, r)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(r, n) {
					t.Errorf("report has %q:\n%s", n, r)
				}
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	for _, name := range InspectTools {
		if !Allowed(Inspect, name) || !Allowed(Work, name) {
			t.Errorf("%s should be allowed in both modes", name)
		}
	}
	for _, name := range []string{"write_file", "edit_file", "shell", "agent", "todo"} {
		if Allowed(Inspect, name) {
			t.Errorf("inspect allows %s", name)
		}
	}
	if Allowed(Work, Name) {
		t.Error("work allows agent: children would nest")
	}
	if !Allowed(Work, "shell") || !Allowed(Work, "edit_file") {
		t.Error("work should allow shell and edit_file")
	}
}
