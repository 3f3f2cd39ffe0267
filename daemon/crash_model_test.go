package daemon_test

// The crash test's script and its model: the tool calls it sends, and what
// the workspace must hold before and after each of them. The model is
// written from the tools' documented behaviour, not read back from the
// daemon, so the control run (no kill) checks the daemon against it.

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
)

// fileImage is one workspace file as the model expects it on disk.
type fileImage struct {
	data string
	mode fs.FileMode
}

// wsImage is a whole workspace: regular files by slash-separated relative path.
type wsImage map[string]fileImage

func (w wsImage) clone() wsImage { return maps.Clone(w) }

// crashStep is one tools/call of the script.
type crashStep struct {
	request string
	tool    string
	args    map[string]any
	// change applies the step to the model; nil for a read.
	change func(wsImage) error
	// writes are the files the step writes through the atomic writer
	// (temporary file, then rename): the only places a kill may leave a
	// temporary file.
	writes []string
}

func (s crashStep) String() string {
	if s.tool == "move_file" {
		return fmt.Sprintf("%s %s %v to %v", s.request, s.tool, s.args["from"], s.args["to"])
	}
	return fmt.Sprintf("%s %s %v", s.request, s.tool, s.args["path"])
}

// numbered is n lines "<prefix> line 00000" … with eol after each: unique
// lines, so edits can aim at one of them.
func numbered(prefix string, n int, eol string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %05d%s", prefix, i, eol)
	}
	return b.String()
}

// crashInitial is the workspace before the first request: files a few
// hundred KB long (so a write takes a while and a kill can land inside
// it), a CRLF file, an executable and a file with an unusual mode.
func crashInitial() wsImage {
	return wsImage{
		"big1.txt":     {numbered("big1", 16000, "\n"), 0o644},
		"big2.txt":     {numbered("big2", 20000, "\n"), 0o644},
		"crlf.txt":     {numbered("crlf", 6000, "\r\n"), 0o644},
		"run.sh":       {"#!/bin/sh\necho hello\n", 0o755},
		"notes.md":     {"# Notes\n\nfirst note\n", 0o644},
		"sub/data.txt": {numbered("data", 2000, "\n"), 0o640},
	}
}

// crashScript is five requests of reads, edits, multi-edits, overwrites,
// creations, appends, moves and deletes; paths are touched twice in one
// request, reused across requests, moved into new folders, deleted and
// created again.
func crashScript() []crashStep {
	read := func(req, path string, limit int) crashStep {
		args := map[string]any{"path": path}
		if limit > 0 {
			args["limit"] = limit
		}
		return crashStep{request: req, tool: "read_file", args: args}
	}
	edit := func(req, path, old, new string, all bool) crashStep {
		args := map[string]any{"path": path, "old_string": old, "new_string": new}
		if all {
			args["replace_all"] = true
		}
		return crashStep{request: req, tool: "edit_file", args: args, change: modelEdits(path, [][2]string{{old, new}}, all), writes: []string{path}}
	}
	multi := func(req, path string, pairs [][2]string) crashStep {
		var edits []map[string]any
		for _, p := range pairs {
			edits = append(edits, map[string]any{"old_string": p[0], "new_string": p[1]})
		}
		return crashStep{request: req, tool: "multi_edit", args: map[string]any{"path": path, "edits": edits}, change: modelEdits(path, pairs, false), writes: []string{path}}
	}
	write := func(req, path, content string) crashStep {
		return crashStep{request: req, tool: "write_file", args: map[string]any{"path": path, "content": content}, change: modelWrite(path, content, false), writes: []string{path}}
	}
	appendTo := func(req, path, content string) crashStep {
		return crashStep{request: req, tool: "write_file", args: map[string]any{"path": path, "content": content, "append": true}, change: modelWrite(path, content, true), writes: []string{path}}
	}
	move := func(req, from, to string) crashStep {
		return crashStep{request: req, tool: "move_file", args: map[string]any{"from": from, "to": to}, change: modelMove(from, to)}
	}
	del := func(req, path string) crashStep {
		return crashStep{request: req, tool: "delete_file", args: map[string]any{"path": path}, change: modelDelete(path)}
	}
	return []crashStep{
		read("r1", "big1.txt", 40),
		edit("r1", "big1.txt", "big1 line 00010\n", "big1 line 00010 edited by r1\n", false),
		read("r1", "crlf.txt", 20),
		multi("r1", "crlf.txt", [][2]string{
			{"crlf line 00003\ncrlf line 00004", "crlf line 00003 (r1)\ncrlf line 00004 (r1)\nadded by r1"},
			{"crlf line 05999", "crlf last line (r1)"},
		}),
		write("r1", "new/created.txt", numbered("created", 12000, "\n")),

		read("r2", "run.sh", 0),
		write("r2", "run.sh", "#!/bin/sh\necho changed by r2\nexit 0\n"),
		appendTo("r2", "big2.txt", numbered("appended by r2", 6000, "\n")),
		move("r2", "notes.md", "docs/notes.md"),

		read("r3", "big2.txt", 0),
		write("r3", "big2.txt", numbered("big2 rewritten by r3", 15000, "\n")),
		read("r3", "sub/data.txt", 0),
		del("r3", "sub/data.txt"),
		move("r3", "new/created.txt", "new/renamed.txt"),

		edit("r4", "big1.txt", "big1 line 0002", "BIG1 LINE 0002", true),
		edit("r4", "crlf.txt", "crlf line 00100\ncrlf line 00101\n", "", false),
		write("r4", "sub/data.txt", "recreated by r4\n"),
		read("r4", "docs/notes.md", 0),
		del("r4", "docs/notes.md"),

		move("r5", "big2.txt", "archive/big2.txt"),
		appendTo("r5", "archive/big2.txt", "tail added by r5\n"),
		read("r5", "run.sh", 0),
		write("r5", "run.sh", "#!/bin/sh\necho changed again by r5\n"),
		multi("r5", "big1.txt", [][2]string{
			{"big1 line 15999\n", "big1 line 15999\nbig1 appended line (r5)\n"},
			{"big1 line 00000", "big1 first line (r5)"},
		}),
	}
}

// crashStates runs the script on the model: states[i] is the workspace
// after i steps, states[0] the initial one.
func crashStates(initial wsImage, script []crashStep) ([]wsImage, error) {
	states := []wsImage{initial}
	for i, st := range script {
		next := states[i].clone()
		if st.change != nil {
			if err := st.change(next); err != nil {
				return nil, fmt.Errorf("the model cannot apply step %d (%s): %w", i, st, err)
			}
		}
		states = append(states, next)
	}
	return states, nil
}

// eolOf is the line ending the tools keep for a file: CRLF when most
// line breaks are CRLF.
func eolOf(data string) string {
	crlf := strings.Count(data, "\r\n")
	if crlf > strings.Count(data, "\n")-crlf {
		return "\r\n"
	}
	return "\n"
}

// withEOL gives s's line breaks the ending eol.
func withEOL(s, eol string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\r\n" {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

// modelEdits replaces each old with its new in order, in the file's own
// line endings; each old must occur exactly once unless all is set.
func modelEdits(path string, pairs [][2]string, all bool) func(wsImage) error {
	return func(w wsImage) error {
		f, ok := w[path]
		if !ok {
			return fmt.Errorf("%s does not exist", path)
		}
		eol := eolOf(f.data)
		for _, p := range pairs {
			old, new := withEOL(p[0], eol), withEOL(p[1], eol)
			switch n := strings.Count(f.data, old); {
			case n == 0:
				return fmt.Errorf("%q is not in %s", p[0], path)
			case n > 1 && !all:
				return fmt.Errorf("%q occurs %d times in %s", p[0], n, path)
			}
			f.data = strings.ReplaceAll(f.data, old, new)
		}
		w[path] = f
		return nil
	}
}

// modelWrite creates (mode 0644) or overwrites or appends to path; an
// existing file keeps its mode and line endings.
func modelWrite(path, content string, appending bool) func(wsImage) error {
	return func(w wsImage) error {
		f, ok := w[path]
		if !ok {
			w[path] = fileImage{content, 0o644}
			return nil
		}
		if strings.Contains(f.data, "\n") {
			content = withEOL(content, eolOf(f.data))
		}
		if appending {
			content = f.data + content
		}
		w[path] = fileImage{content, f.mode}
		return nil
	}
}

func modelMove(from, to string) func(wsImage) error {
	return func(w wsImage) error {
		f, ok := w[from]
		if _, taken := w[to]; !ok || taken {
			return fmt.Errorf("cannot move %s to %s (source exists %v, target exists %v)", from, to, ok, taken)
		}
		delete(w, from)
		w[to] = f
		return nil
	}
}

func modelDelete(path string) func(wsImage) error {
	return func(w wsImage) error {
		if _, ok := w[path]; !ok {
			return fmt.Errorf("%s does not exist", path)
		}
		delete(w, path)
		return nil
	}
}

// diffImages describes how got differs from want, file by file, enough to
// tell a truncated or mixed file from a wrong one.
func diffImages(want, got wsImage) []string {
	var out []string
	paths := slices.Sorted(maps.Keys(union(want, got)))
	for _, p := range paths {
		w, wok := want[p]
		g, gok := got[p]
		switch {
		case wok && !gok:
			out = append(out, p+" is missing")
		case !wok && gok:
			out = append(out, fmt.Sprintf("%s should not exist (it holds %d bytes)", p, len(g.data)))
		case w.data != g.data:
			out = append(out, fmt.Sprintf("%s holds %d bytes, want %d; they first differ at byte %d", p, len(g.data), len(w.data), firstDifference(w.data, g.data)))
		case w.mode != g.mode:
			out = append(out, fmt.Sprintf("%s has mode %v, want %v", p, g.mode, w.mode))
		}
	}
	return out
}

func union(a, b wsImage) map[string]bool {
	out := map[string]bool{}
	for p := range a {
		out[p] = true
	}
	for p := range b {
		out[p] = true
	}
	return out
}

func firstDifference(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
