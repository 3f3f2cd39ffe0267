package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/protocol"
)

// An edit's question: the title and counts on the first line, the diff in
// a fenced block of its own lines (VS Code renders the message as
// Markdown, where plain line breaks run together), the header that only
// repeats the file's name left out.
func TestQuestionShowsAReadableDiff(t *testing.T) {
	d := diff.Unified("a/main.go", "b/main.go", []byte("package main\n\nfunc main() {}\n"), []byte("package main\n\nfunc main() { println(1) }\n"))
	got := approvalMessage(protocol.ApprovalRequestParams{Tool: "edit_file", Title: "Edit main.go", Kind: protocol.ApprovalEdit, Diff: d, AlwaysScope: "change files inside the workspace"})
	want := "**Edit main\\.go** · +1 \u22121 in 1 hunk\n```diff\n@@ -1,3 +1,3 @@\n package main\n \n-func main() {}\n+func main() { println(1) }\n```"
	if got != want {
		t.Errorf("question:\n%s\nwant:\n%s", got, want)
	}
}

// A long diff is cut at MaxQuestionLines, with a note of how many lines
// and hunks were left out.
func TestQuestionCutsALongDiff(t *testing.T) {
	var before, after strings.Builder
	for i := range 200 {
		fmt.Fprintf(&before, "line %d\n", i)
		if i%20 == 0 {
			fmt.Fprintf(&after, "changed %d\n", i)
		} else {
			fmt.Fprintf(&after, "line %d\n", i)
		}
	}
	d := diff.Unified("a/big.txt", "b/big.txt", []byte(before.String()), []byte(after.String()))
	o := diff.Outlines(d)
	got := approvalMessage(protocol.ApprovalRequestParams{Title: "Overwrite big.txt", Kind: protocol.ApprovalEdit, Diff: d})
	body := got[strings.Index(got, "```diff\n")+len("```diff\n") : strings.LastIndex(got, "```")]
	if n := strings.Count(body, "\n"); n != MaxQuestionLines {
		t.Errorf("%d diff lines shown, want %d", n, MaxQuestionLines)
	}
	left := o.Lines - 2 - MaxQuestionLines
	hunksShown := strings.Count(body, "\n@@ ") + 1
	if !strings.Contains(got, fmt.Sprintf("(%d more lines of the diff not shown, with %d more hunks.)", left, o.Hunks-hunksShown)) {
		t.Errorf("no note of what was left out (%d lines, %d hunks):\n%s", left, o.Hunks-hunksShown, got)
	}
	if !strings.Contains(got, fmt.Sprintf("+%d \u2212%d in %d hunks", o.Added, o.Removed, o.Hunks)) {
		t.Errorf("the counts are not the whole change's:\n%s", got[:80])
	}
}

// Nothing in a diff or a title can break out of its block: a file holding
// a fence, a name with Markdown in it.
func TestQuestionIsNotBrokenByItsContent(t *testing.T) {
	d := diff.Unified("a/README.md", "b/README.md", []byte("intro\n"), []byte("intro\n````\nfenced\n````\n"))
	got := approvalMessage(protocol.ApprovalRequestParams{Title: "Edit *README*.md", Kind: protocol.ApprovalEdit, Diff: d})
	if !strings.Contains(got, "\n`````diff\n") || !strings.HasSuffix(got, "\n`````") {
		t.Errorf("the fence is not longer than the content's:\n%s", got)
	}
	if !strings.HasPrefix(got, `**Edit \*README\*\.md**`) {
		t.Errorf("the title's Markdown is not escaped:\n%s", got)
	}
	cmd := approvalMessage(protocol.ApprovalRequestParams{Title: "Run a command", Kind: protocol.ApprovalShell, Command: "echo '```'\nrm -rf x"})
	if !strings.Contains(cmd, "````sh\necho '```'\nrm -rf x\n````") {
		t.Errorf("the command is not shown whole in its own block:\n%s", cmd)
	}
	several := diff.Unified("/dev/null", "b/a.txt", nil, []byte("a\n")) + diff.Unified("a/b.txt", "/dev/null", []byte("b\n"), nil)
	if got := approvalMessage(protocol.ApprovalRequestParams{Title: "Apply the command's changes", Kind: protocol.ApprovalEdit, Diff: several, Command: "make gen"}); !strings.Contains(got, "· 2 files, +1 \u22121 in 2 hunks") || !strings.Contains(got, "+++ b/a.txt") || !strings.Contains(got, "` make gen `") {
		t.Errorf("a change set's question:\n%s", got)
	}
}
