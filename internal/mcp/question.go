package mcp

import (
	"fmt"
	"strings"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/protocol"
)

// MaxQuestionLines is how many lines of a change's diff an elicitation
// shows; the note under it says what was left out. A question is read in
// a chat panel's width, where a long one scrolls out of sight.
const MaxQuestionLines = 40

// approvalMessage is an approval as the MCP client shows it, short, in
// Markdown: VS Code renders an elicitation's message as Markdown (plain
// line breaks run together there), and other clients print the text,
// which reads well as it is. It says what the step is, then for a change
// its counts and the diff in a fenced block (VS Code colours it), cut at
// MaxQuestionLines with a note of what was left out; for a command, an
// address or a path, that in full. What "always" allows is the answer's
// own label.
func approvalMessage(req protocol.ApprovalRequestParams) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", escapeMarkdown(req.Title))
	switch {
	case req.Diff != "":
		writeDiff(&b, req.Diff)
		if req.Command != "" {
			fmt.Fprintf(&b, "\nThe command that made this change: %s\n", inlineCode(req.Command))
		}
	case req.Command != "":
		b.WriteString("\n")
		b.WriteString(fenced("sh", req.Command))
	case req.URL != "":
		fmt.Fprintf(&b, "\n\nAddress: %s (host %s)\n", inlineCode(req.URL), inlineCode(req.Host))
	case req.Host != "":
		fmt.Fprintf(&b, "\n\nHost: %s\n", inlineCode(req.Host))
	case req.Path != "":
		fmt.Fprintf(&b, "\n\nPath: %s\n", inlineCode(req.Path))
	default:
		b.WriteString("\n")
	}
	if req.Command != "" && req.Sandbox != nil && !*req.Sandbox {
		b.WriteString("\nRuns outside the sandbox: it runs with all of the user's rights.\n")
	} else if req.Command != "" && req.Network {
		b.WriteString("\nRuns with network access.\n")
	}
	if len(req.Untrusted) > 0 {
		what := "before writing project memory: check that it holds only what you want remembered"
		if req.Kind != protocol.ApprovalMemory {
			what = "before this step: its words may be someone else's"
		}
		fmt.Fprintf(&b, "\n**This request read content from outside first** (%s) %s.\n", escapeMarkdown(strings.Join(req.Untrusted, ", ")), what)
	}
	if req.AlwaysScope == "" && req.Kind == protocol.ApprovalShell {
		b.WriteString("\n(No \"always\" for this step: it is asked every time.)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeDiff writes a change's counts after the title, then its diff, cut
// to MaxQuestionLines. A one-file diff loses its ---/+++ header, which
// only repeats the name the title gives.
func writeDiff(b *strings.Builder, d string) {
	o := diff.Outlines(d)
	lines := strings.SplitAfter(strings.TrimRight(d, "\n"), "\n")
	if len(o.Files) == 1 && len(lines) >= 2 && strings.HasPrefix(lines[0], "--- ") && strings.HasPrefix(lines[1], "+++ ") {
		lines = lines[2:]
	}
	if len(o.Files) > 1 {
		fmt.Fprintf(b, " · %d files, %s\n", len(o.Files), counts(o))
	} else {
		fmt.Fprintf(b, " · %s\n", counts(o))
	}
	shown := lines
	if len(shown) > MaxQuestionLines {
		shown = shown[:MaxQuestionLines]
	}
	b.WriteString(fenced("diff", strings.Join(shown, "")))
	if left := len(lines) - len(shown); left > 0 {
		hunksShown := 0
		for _, l := range shown {
			if strings.HasPrefix(l, "@@ ") {
				hunksShown++
			}
		}
		note := fmt.Sprintf("%d more line%s of the diff not shown", left, plural(left))
		if more := o.Hunks - hunksShown; more > 0 {
			note += fmt.Sprintf(", with %d more hunk%s", more, plural(more))
		}
		fmt.Fprintf(b, "\n(%s.)\n", note)
	}
}

// counts is "+3 −1 in 2 hunks".
func counts(o diff.Outline) string {
	s := diff.Stats{Added: o.Added, Removed: o.Removed}.String()
	if o.Hunks > 0 {
		s += fmt.Sprintf(" in %d hunk%s", o.Hunks, plural(o.Hunks))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// fenced puts text in a fenced code block whose fence no run of backticks
// in the text can close.
func fenced(lang, text string) string {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n"
}

// inlineCode writes one line of text as a Markdown code span that cannot
// be broken out of; line breaks show as ⏎.
func inlineCode(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ⏎ ")), " ")
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	return ticks + " " + s + " " + ticks
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// escapeMarkdown keeps plain text plain: a file name with * or _ in it
// is not emphasis, a < is not HTML.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-.!|<>~", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
