package diagnostics

import (
	"fmt"
	"sort"
	"strings"

	lsp "go.lsp.dev/protocol"
)

// Problem is one diagnostic with its file, ready to print.
type Problem struct {
	Path string // as shown to the model (workspace-relative)
	lsp.Diagnostic
}

// SeverityName names a severity the way compilers print it.
func SeverityName(s lsp.DiagnosticSeverity) string {
	switch s {
	case lsp.DiagnosticSeverityWarning:
		return "warning"
	case lsp.DiagnosticSeverityInformation:
		return "info"
	case lsp.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// ParseSeverity reads a severity filter: the most minor severity to include.
func ParseSeverity(name string) (lsp.DiagnosticSeverity, error) {
	switch strings.ToLower(name) {
	case "", "hint", "all":
		return lsp.DiagnosticSeverityHint, nil
	case "error", "errors":
		return lsp.DiagnosticSeverityError, nil
	case "warning", "warnings":
		return lsp.DiagnosticSeverityWarning, nil
	case "info", "information":
		return lsp.DiagnosticSeverityInformation, nil
	}
	return 0, fmt.Errorf("unknown severity %q: use error, warning, info or hint", name)
}

// Sort orders problems errors first, then by path, line and column.
func Sort(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if ra, rb := rank(a.Severity), rank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line < b.Range.Start.Line
		}
		return a.Range.Start.Character < b.Range.Start.Character
	})
}

// Line renders one problem: path:line:col: severity: message [source code].
// Lines and columns are 1-based, as compilers print them.
func Line(p Problem) string {
	msg := strings.Join(strings.Fields(p.Message), " ")
	var tag []string
	if p.Source != "" {
		tag = append(tag, p.Source)
	}
	if code := codeString(p.Code); code != "" {
		tag = append(tag, code)
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s", p.Path, p.Range.Start.Line+1, p.Range.Start.Character+1, SeverityName(p.Severity), msg)
	if len(tag) > 0 {
		s += " [" + strings.Join(tag, " ") + "]"
	}
	return s
}

func codeString(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case float64:
		return fmt.Sprintf("%d", int64(v))
	case string:
		return v
	case map[string]any: // VS Code sends {value, target} for linked codes
		if val, ok := v["value"]; ok {
			return codeString(val)
		}
	}
	return fmt.Sprint(c)
}

// Format renders problems one a line, sorted, within max bytes; what does
// not fit is counted at the end.
func Format(ps []Problem, max int) string {
	Sort(ps)
	var sb strings.Builder
	for i, p := range ps {
		l := Line(p) + "\n"
		if sb.Len()+len(l) > max-80 && i > 0 {
			fmt.Fprintf(&sb, "… and %d more problems not shown; narrow with path or severity\n", len(ps)-i)
			break
		}
		sb.WriteString(l)
	}
	return sb.String()
}

// key identifies a diagnostic across edits that move it: positions shift
// when lines are added above, so they are left out.
func key(d lsp.Diagnostic) string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s", rank(d.Severity), d.Source, codeString(d.Code), d.Message)
}

// Introduced returns the diagnostics in after that were not in before,
// counting duplicates: if before had one "unused variable x" and after has
// two, one is new.
func Introduced(before, after []lsp.Diagnostic) []lsp.Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		seen[key(d)]++
	}
	var out []lsp.Diagnostic
	for _, d := range after {
		k := key(d)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}
