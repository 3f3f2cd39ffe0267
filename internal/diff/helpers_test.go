package diff

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tiny limits push even small inputs through anchoring and the
// remove-and-re-add fallback, which default limits reserve for big files.
var tiny = limits{small: 2, myers: 6, work: 40, depth: 2}

// allIDs lists the IDs of hs.
func allIDs(hs []Hunk) []int {
	ids := make([]int, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

// checkHunks verifies everything that must hold of Hunks(a, b) computed
// with lim, in pure Go: the hunks rebuild b, dropping them all keeps a, their
// headers and line numbers agree with their lines, and their rendered text,
// applied by an independent reader of unified diffs, rebuilds b as well.
func checkHunks(t testing.TB, a, b []byte, lim limits) []Hunk {
	t.Helper()
	hs := hunksWith(a, b, lim)
	if got := ApplyHunks(a, hs, allIDs(hs)); !bytes.Equal(got, b) {
		t.Fatalf("ApplyHunks(all) = %q, want %q", trunc(got), trunc(b))
	}
	if got := ApplyHunks(a, hs, nil); !bytes.Equal(got, a) {
		t.Fatalf("ApplyHunks(none) = %q, want %q", trunc(got), trunc(a))
	}
	if bytes.Equal(a, b) != (len(hs) == 0) {
		t.Fatalf("equal=%v but %d hunks", bytes.Equal(a, b), len(hs))
	}
	prevEnd := 0
	for k, h := range hs {
		if h.ID != k+1 {
			t.Fatalf("hunk %d has ID %d", k, h.ID)
		}
		oldN, newN := 0, 0
		oldNum, newNum := max(h.OldStart, 1), max(h.NewStart, 1)
		changed := false
		for _, l := range h.Lines {
			switch l.Kind {
			case ' ':
				if l.OldNum != oldNum || l.NewNum != newNum {
					t.Fatalf("hunk %d: context line numbered %d/%d, want %d/%d", h.ID, l.OldNum, l.NewNum, oldNum, newNum)
				}
				oldN, newN, oldNum, newNum = oldN+1, newN+1, oldNum+1, newNum+1
			case '-':
				if l.OldNum != oldNum || l.NewNum != 0 {
					t.Fatalf("hunk %d: removed line numbered %d/%d, want %d/0", h.ID, l.OldNum, l.NewNum, oldNum)
				}
				oldN, oldNum, changed = oldN+1, oldNum+1, true
			case '+':
				if l.NewNum != newNum || l.OldNum != 0 {
					t.Fatalf("hunk %d: added line numbered %d/%d, want 0/%d", h.ID, l.OldNum, l.NewNum, newNum)
				}
				newN, newNum, changed = newN+1, newNum+1, true
			default:
				t.Fatalf("hunk %d: line kind %q", h.ID, l.Kind)
			}
		}
		if oldN != h.OldLines || newN != h.NewLines || !changed {
			t.Fatalf("hunk %+v: lines count -%d +%d, changed=%v", h, oldN, newN, changed)
		}
		if h.OldStart < prevEnd {
			t.Fatalf("hunk %d overlaps the previous one", h.ID)
		}
		prevEnd = h.OldStart + h.OldLines
	}
	if !isBinary(a) && !isBinary(b) {
		if got := applyUnified(t, a, render("a/f", "b/f", hs)); !bytes.Equal(got, b) {
			t.Fatalf("applying the rendered diff gives %q, want %q", trunc(got), trunc(b))
		}
	}
	return hs
}

// applyUnified applies the unified diff u to a, checking every context and
// removed line against a. It reads the text only, not the Hunk values, so it
// checks Unified's rendering the way patch would, without running patch.
func applyUnified(t testing.TB, a []byte, u string) []byte {
	t.Helper()
	old := lineStrings(a)
	lines := lineStrings([]byte(u))
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("diff lacks headers: %q", trunc([]byte(u)))
	}
	var out []byte
	i, outLines := 0, 0
	for k := 2; k < len(lines); {
		var oldStart, oldN, newStart, newN int
		if !parseHeader(lines[k], &oldStart, &oldN, &newStart, &newN) {
			t.Fatalf("bad hunk header %q", lines[k])
		}
		k++
		start := oldStart - 1
		if oldN == 0 {
			start = oldStart
		}
		if start < i || start > len(old) {
			t.Fatalf("hunk at %d out of order or range", oldStart)
		}
		out = append(out, strings.Join(old[i:start], "")...)
		outLines += start - i
		i = start
		if want := startLine(outLines, newN); newStart != want {
			t.Fatalf("hunk header says new start %d, want %d", newStart, want)
		}
		oldSeen, newSeen := 0, 0
		for k < len(lines) && !strings.HasPrefix(lines[k], "@@ ") {
			kind, text := lines[k][0], lines[k][1:]
			k++
			if k < len(lines) && lines[k] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				k++
			}
			switch kind {
			case ' ', '-':
				if i >= len(old) || old[i] != text {
					t.Fatalf("line %d of a does not match the diff's %q", i+1, text)
				}
				if kind == ' ' {
					out = append(out, text...)
					newSeen++
				}
				oldSeen++
				i++
			case '+':
				out = append(out, text...)
				newSeen++
			default:
				t.Fatalf("bad diff line %q", lines[k-1])
			}
		}
		outLines += newSeen
		if oldSeen != oldN || newSeen != newN {
			t.Fatalf("hunk header says -%d +%d, body has -%d +%d", oldN, newN, oldSeen, newSeen)
		}
	}
	return append(out, strings.Join(old[i:], "")...)
}

func parseHeader(s string, oldStart, oldN, newStart, newN *int) bool {
	var oldR, newR string
	if _, err := fmt.Sscanf(s, "@@ -%s +%s @@\n", &oldR, &newR); err != nil {
		return false
	}
	return parseRange(oldR, oldStart, oldN) && parseRange(newR, newStart, newN)
}

func parseRange(r string, start, n *int) bool {
	*n = 1
	if strings.Contains(r, ",") {
		_, err := fmt.Sscanf(r, "%d,%d", start, n)
		return err == nil
	}
	_, err := fmt.Sscanf(r, "%d", start)
	return err == nil
}

// patchRoundTrip applies Unified(a, b) to a with GNU patch and with git
// apply, and checks both produce b byte for byte. A nil side stands for an
// absent file: the diff is then a creation or a deletion.
func patchRoundTrip(t *testing.T, a, b []byte) {
	t.Helper()
	oldName, newName := "a/f", "b/f"
	if a == nil {
		oldName = "/dev/null"
	}
	if b == nil {
		newName = "/dev/null"
	}
	u := Unified(oldName, newName, a, b)
	if bytes.Equal(a, b) {
		if u != "" {
			t.Fatalf("equal inputs gave %q", u)
		}
		return
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	diffFile := write("change.diff", []byte(u))

	if _, err := exec.LookPath("patch"); err != nil {
		t.Errorf("GNU patch not installed (apt-get install -y patch)")
	} else {
		in, out := write("in", a), filepath.Join(dir, "out")
		cmd := exec.Command("patch", "-s", "-f", "-o", out, in, diffFile)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, msg, trunc([]byte(u)))
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, b) {
			t.Fatalf("patch gives %q, want %q\ndiff:\n%s", trunc(got), trunc(b), trunc([]byte(u)))
		}
	}

	work := filepath.Join(dir, "git")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if a != nil {
		write("git/f", a)
	}
	cmd := exec.Command("git", "apply", "--whitespace=nowarn", diffFile)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\ndiff:\n%s", err, msg, trunc([]byte(u)))
	}
	got, err := os.ReadFile(filepath.Join(work, "f"))
	if b == nil {
		if !os.IsNotExist(err) {
			t.Fatalf("git apply left the deleted file (err %v)", err)
		}
	} else if !bytes.Equal(got, b) {
		t.Fatalf("git apply gives %q, want %q", trunc(got), trunc(b))
	}
}

func trunc(p []byte) string {
	if len(p) > 300 {
		return string(p[:300]) + fmt.Sprintf("…(%d bytes)", len(p))
	}
	return string(p)
}

// lineStrings splits p as the package does, into strings.
func lineStrings(p []byte) []string {
	l := splitLines(p)
	out := make([]string, l.len())
	for i := range out {
		out[i] = string(l.at(i))
	}
	return out
}
