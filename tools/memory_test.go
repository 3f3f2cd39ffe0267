package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/permission"
	"github.com/tether-dev/tether/internal/staging"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/undo"
)

// newMemoryHarness is a harness whose project has a memory folder (outside
// the workspace, as the XDG data folder is) and remembers its requests.
func newMemoryHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.env.Memory = memory.Open(filepath.Join(t.TempDir(), "data", "memory"))
	t.Cleanup(func() { h.env.Memory.Close() })
	h.env.Requests = tool.NewRequests()
	return h
}

// memFile is a memory's file as stored, "" when it does not exist.
func (h *harness) memFile(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.env.Memory.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *harness) memPage(name string) memory.Page {
	h.t.Helper()
	p, err := memory.Parse([]byte(h.memFile(name)))
	if err != nil {
		h.t.Fatalf("memory %s: %v", name, err)
	}
	return p
}

func TestRememberCreatesAMemoryOutsideTheWorkspace(t *testing.T) {
	h := newMemoryHarness(t)
	out := h.ok("remember", map[string]any{
		"name": "build-cache", "text": "The build cache lives in .cache/build; clear it after a toolchain update.",
		"description": "Where the build cache is", "type": "procedural", "keywords": "cache, build, caché", "related": []string{"toolchain"},
	})
	if !strings.Contains(out, "Saved the new memory build-cache") || !strings.Contains(out, "toolchain, which no memory has") {
		t.Fatalf("result: %s", out)
	}
	p := h.memPage("build-cache")
	m := p.Meta
	if m.Description != "Where the build cache is" || m.Type != memory.TypeProcedural || fmt.Sprint(m.Keywords) != "[cache build caché]" ||
		fmt.Sprint(m.Related) != "[toolchain]" || m.Created.IsZero() || !m.Updated.Equal(m.Created) || m.Source != "request r1" {
		t.Fatalf("frontmatter: %+v", m)
	}
	if !strings.HasPrefix(p.Body, "The build cache lives") {
		t.Fatalf("body %q", p.Body)
	}
	// The default mode asked, showing a memory approval with the whole page.
	if len(h.host.requests) != 1 {
		t.Fatalf("%d approvals", len(h.host.requests))
	}
	req := h.host.requests[0]
	if req.Kind != protocol.ApprovalMemory || req.Proposed != h.memFile("build-cache") || req.Original != "" ||
		!strings.Contains(req.Diff, "+++ b/memory/build-cache.md") || req.AlwaysScope != "write project memory" || len(req.Untrusted) != 0 {
		t.Fatalf("approval: %+v", req)
	}
	entries, _ := os.ReadDir(h.dir)
	if len(entries) != 0 {
		t.Fatalf("the workspace got files: %v", entries)
	}
}

func TestRememberMergesEachFieldOverTheStoredPage(t *testing.T) {
	h := newMemoryHarness(t)
	h.ok("remember", map[string]any{"name": "ci", "text": "v1", "description": "the pipeline", "type": "project", "keywords": "ci, pipeline", "related": []string{"deploy"}})
	created := h.memPage("ci").Meta.Created
	// Omitted fields stay; an empty one goes; a given one replaces.
	h.ok("remember", map[string]any{"name": "ci", "text": "v2", "keywords": "", "type": "reference"})
	m := h.memPage("ci").Meta
	if m.Description != "the pipeline" || len(m.Keywords) != 0 || m.Type != memory.TypeReference || fmt.Sprint(m.Related) != "[deploy]" {
		t.Fatalf("after a partial update: %+v", m)
	}
	if !m.Created.Equal(created) {
		t.Fatalf("created moved from %v to %v", created, m.Created)
	}
	h.ok("remember", map[string]any{"name": "ci", "text": "v3", "description": "", "related": []string{}})
	if m := h.memPage("ci").Meta; m.Description != "" || len(m.Related) != 0 || m.Type != memory.TypeReference {
		t.Fatalf("after removals: %+v", m)
	}
	// The approval of an update shows the diff against the stored page.
	last := h.host.requests[len(h.host.requests)-1]
	if !strings.Contains(last.Diff, "-v2") || !strings.Contains(last.Diff, "+v3") || last.Original == "" {
		t.Fatalf("update approval: %+v", last)
	}
	if out := h.ok("remember", map[string]any{"name": "ci", "text": "v3"}); !strings.Contains(out, "already holds exactly this") {
		t.Fatalf("an identical write: %s", out)
	}
	// A created (or a name) the model puts in a frontmatter of its own is ignored.
	out := h.ok("remember", map[string]any{"name": "ci", "text": "---\nname: ci\ncreated: 1999-01-01T00:00:00Z\ndescription: from text\n---\nv4\n"})
	if !strings.Contains(out, "name and created, which Tether sets itself; that was ignored") {
		t.Fatalf("result: %s", out)
	}
	if p := h.memPage("ci"); !p.Meta.Created.Equal(created) || p.Meta.Description != "from text" || strings.TrimSpace(p.Body) != "v4" {
		t.Fatalf("after a text with frontmatter: %+v %q", p.Meta, p.Body)
	}
	if msg := h.fail("remember", map[string]any{"name": "ci", "text": "x", "type": "notes"}); !strings.Contains(msg, "enum") && !strings.Contains(msg, "notes") {
		t.Fatalf("an unknown type: %s", msg)
	}
}

func TestRememberAnswersANewNameWithSimilarMemories(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	h.ok("remember", map[string]any{"name": "release-process", "text": "tag, build, publish", "description": "how we ship a release"})
	h.ok("remember", map[string]any{"name": "editor-setup", "text": "tabs"})
	out := h.ok("remember", map[string]any{"name": "release-steps", "text": "tag first"})
	if !strings.Contains(out, "Existing memories like it:\n  release-process (") || strings.Contains(out, "editor-setup") ||
		!strings.Contains(out, "archive release-steps with memory_archive") {
		t.Fatalf("result: %s", out)
	}
	if out := h.ok("remember", map[string]any{"name": "release-steps", "text": "tag first, then build"}); strings.Contains(out, "like it") {
		t.Fatalf("an update was answered with similar memories: %s", out)
	}
}

func TestMemoryToolsRefuseHostileNames(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	outside := filepath.Join(filepath.Dir(h.env.Memory.Dir()), "escaped")
	for _, name := range []string{"../escaped", "..", ".hidden", "a/b", `a\b`, "/etc/passwd", "Upper", "con", "x\x00y", "semi;colon"} {
		for _, tl := range []string{"remember", "memory_read", "memory_archive"} {
			args := map[string]any{"name": name}
			if tl == "remember" {
				args["text"] = "x"
			}
			msg := h.fail(tl, args)
			if !strings.Contains(msg, "invalid memory name") || !strings.Contains(msg, "short slug") {
				t.Errorf("%s(%q): %s", tl, name, msg)
			}
		}
	}
	if _, err := os.Stat(outside + ".md"); err == nil {
		t.Fatal("a name wrote outside the memory folder")
	}
	if len(h.host.requests) != 0 {
		t.Fatalf("a refused name reached the user: %+v", h.host.requests)
	}
}

func TestRememberSizeCapCountsTheWholePage(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	h.env.Settings.MemoryMaxBytes = 2048
	text := strings.Repeat("x", 2000) // fits alone, not with its frontmatter
	msg := h.fail("remember", map[string]any{"name": "big", "text": text, "description": "a long one"})
	if !strings.Contains(msg, "with its frontmatter, over the limit of 2048") || !strings.Contains(msg, "memoryMaxBytes") {
		t.Fatal(msg)
	}
	if h.memFile("big") != "" {
		t.Fatal("an oversized memory was written")
	}
	h.ok("remember", map[string]any{"name": "big", "text": text[:1500]})
	if d := Remember.Info(&h.env.Settings).Description; !strings.Contains(d, "at most 2 KB, frontmatter included") {
		t.Fatalf("the description does not follow the setting: %s", d)
	}
}

func TestBrokenMemoryIsReportedAndNeverRewritten(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	broken := "---\ntype: project\ndescription: [unclosed\nkeywords: a\n---\nThe user's own notes.\n"
	if err := os.MkdirAll(h.env.Memory.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.env.Memory.Path("notes"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	read := h.ok("memory_read", map[string]any{"name": "notes"})
	if !strings.Contains(read, "frontmatter cannot be read: line 3: ") || !strings.Contains(read, broken) {
		t.Fatalf("memory_read: %s", read)
	}
	list := h.ok("memory_search", map[string]any{"query": ""})
	if !strings.Contains(list, "notes (") || !strings.Contains(list, "BROKEN: line 3: ") {
		t.Fatalf("list: %s", list)
	}
	if found := h.ok("memory_search", map[string]any{"query": "own notes"}); !strings.Contains(found, "BROKEN") {
		t.Fatalf("search: %s", found)
	}
	msg := h.fail("remember", map[string]any{"name": "notes", "text": "overwrite"})
	if !strings.Contains(msg, "line 3") || !strings.Contains(msg, "ask the user to fix") || !strings.Contains(msg, "Nothing was saved") {
		t.Fatal(msg)
	}
	if h.memFile("notes") != broken {
		t.Fatal("the broken memory was rewritten")
	}
}

// Memory writes are medium risk: they ask in default and acceptEdits (which
// exempts file edits only), run in bypass, are refused in plan and staged
// in dryRun; reads never ask.
func TestMemoryPermissionsFollowTheMode(t *testing.T) {
	for _, tc := range []struct {
		mode    protocol.Mode
		asks    bool
		written bool
		msg     string
	}{
		{protocol.ModeDefault, true, true, "Saved"},
		{protocol.ModeAcceptEdits, true, true, "Saved"},
		{protocol.ModeBypass, false, true, "Saved"},
		{protocol.ModePlan, false, false, "plan mode is read-only"},
		{protocol.ModeDryRun, false, false, "Dry run"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			h := newMemoryHarness(t)
			h.env.Staging = staging.Open(t.TempDir())
			h.env.Settings.Mode = tc.mode
			r := h.call("remember", map[string]any{"name": "fact", "text": "a fact"})
			if !strings.Contains(r.Content, tc.msg) {
				t.Fatalf("result: %+v", r)
			}
			if asked := len(h.host.requests) > 0; asked != tc.asks {
				t.Fatalf("asked %v, want %v", asked, tc.asks)
			}
			if got := h.memFile("fact") != ""; got != tc.written {
				t.Fatalf("written %v, want %v", got, tc.written)
			}
			h.ok("memory_search", map[string]any{"query": ""})
			if tc.written {
				h.ok("memory_read", map[string]any{"name": "fact"})
			}
			if asked := len(h.host.requests) > 0; asked != tc.asks {
				t.Fatal("a read asked")
			}
			if tc.mode != protocol.ModeDryRun {
				return
			}
			// Applying the staged change is the user's act; the memory file
			// outside the workspace is not refused.
			list, _ := h.env.Staging.List()
			if len(list) != 1 || !strings.Contains(list[0].Diff, "memory/fact.md") {
				t.Fatalf("staged: %+v", list)
			}
			c := &tool.Call{Name: "staged apply", RequestID: "apply", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env}
			res, err := c.ApplyStaged(context.Background(), list[0])
			if err != nil || res.IsError || !strings.Contains(h.memFile("fact"), "a fact") {
				t.Fatalf("apply: %+v %v", res, err)
			}
		})
	}
}

// The web rule: once the request read content from outside, every memory
// write asks, in every mode, shows the whole text and says what was read;
// nobody to ask means no write; an approved one is stamped source: web.
func TestMemoryWritesAfterWebContentAlwaysAsk(t *testing.T) {
	const page = "https://docs.example.test/install"
	for _, mode := range []protocol.Mode{protocol.ModeDefault, protocol.ModeAcceptEdits, protocol.ModeBypass} {
		t.Run(string(mode), func(t *testing.T) {
			h := newMemoryHarness(t)
			h.env.Settings.Mode = mode
			// A saved "always" for memory writes does not cover this one.
			rules, err := permission.LoadRules(filepath.Join(t.TempDir(), "allow.json"))
			if err != nil {
				t.Fatal(err)
			}
			rules.Add(permission.Rule{Kind: protocol.ApprovalMemory})
			h.env.Rules = rules
			h.ok("remember", map[string]any{"name": "old", "text": "before the web"})
			asked := len(h.host.requests)

			h.env.Requests.MarkUntrusted("r1", page)
			out := h.ok("remember", map[string]any{"name": "install", "text": "Run the installer with --prefix."})
			if len(h.host.requests) != asked+1 {
				t.Fatalf("the write after reading %s did not ask", page)
			}
			req := h.host.requests[len(h.host.requests)-1]
			if req.Kind != protocol.ApprovalMemory || fmt.Sprint(req.Untrusted) != "["+page+"]" || !strings.Contains(req.Title, page) ||
				req.Proposed != h.memFile("install") || req.AlwaysScope != "this step only" {
				t.Fatalf("approval: %+v", req)
			}
			if p := h.memPage("install"); p.Meta.Source != memory.SourceWeb || fmt.Sprint(p.Meta.Pages) != "["+page+"]" {
				t.Fatalf("stamp: %+v", p.Meta)
			}
			if !strings.Contains(out, "written after reading web content") {
				t.Fatalf("result: %s", out)
			}
			// Archiving asks too; "always" saves no rule.
			h.host.answer = protocol.AnswerAlways
			h.ok("memory_archive", map[string]any{"name": "old"})
			if len(h.host.requests) != asked+2 || len(rules.List()) != 1 {
				t.Fatalf("archive: %d approvals, rules %v", len(h.host.requests)-asked, rules.List())
			}
			// Another request, which read nothing, is not held to it.
			h.host.answer = protocol.AnswerYes
			r := h.reg.Invoke(context.Background(), &tool.Call{Name: "remember", Args: []byte(`{"name":"other","text":"x"}`), RequestID: "r2", Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
			if r.IsError || len(h.host.requests) != asked+2 {
				t.Fatalf("a clean request: %+v, %d approvals", r, len(h.host.requests)-asked)
			}
		})
	}
	t.Run("nobody to ask", func(t *testing.T) {
		h := newMemoryHarness(t)
		h.env.Settings.Mode = protocol.ModeBypass
		h.env.Host = nil
		h.env.Requests.MarkUntrusted("r1", page)
		msg := h.fail("remember", map[string]any{"name": "install", "text": "x"})
		if !strings.Contains(msg, "nobody can be asked") || h.memFile("install") != "" {
			t.Fatalf("%s", msg)
		}
	})
	t.Run("declined", func(t *testing.T) {
		h := newMemoryHarness(t)
		h.env.Settings.Mode = protocol.ModeBypass
		h.host.answer = protocol.AnswerNo
		h.env.Requests.MarkUntrusted("r1", page)
		if msg := h.fail("remember", map[string]any{"name": "install", "text": "x"}); !strings.Contains(msg, "declined") || h.memFile("install") != "" {
			t.Fatal(msg)
		}
	})
	t.Run("plan", func(t *testing.T) {
		h := newMemoryHarness(t)
		h.env.Settings.Mode = protocol.ModePlan
		h.env.Requests.MarkUntrusted("r1", page)
		if msg := h.fail("remember", map[string]any{"name": "install", "text": "x"}); !strings.Contains(msg, "plan mode") || len(h.host.requests) != 0 {
			t.Fatal(msg)
		}
	})
}

// A shell command that evidently reached the network marks its request.
func TestShellCommandThatReachesTheNetworkMarksTheRequest(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	h.call("shell", map[string]any{"command": "echo local && ls"})
	if got := h.env.Requests.Untrusted("r1"); len(got) != 0 {
		t.Fatalf("a local command marked the request: %v", got)
	}
	h.call("shell", map[string]any{"command": curl + " -s file:///dev/null"})
	got := h.env.Requests.Untrusted("r1")
	if len(got) != 1 || !strings.Contains(got[0], "curl -s file:///dev/null") {
		t.Fatalf("marks: %v", got)
	}
	h.ok("remember", map[string]any{"name": "after-curl", "text": "x"})
	if len(h.host.requests) != 1 || len(h.host.requests[0].Untrusted) != 1 {
		t.Fatalf("the memory write after curl did not ask: %+v", h.host.requests)
	}
}

func TestMemoryArchiveMovesAndNeverDeletes(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	h.ok("remember", map[string]any{"name": "stale", "text": "first stale fact"})
	out := h.ok("memory_archive", map[string]any{"name": "stale"})
	if !strings.Contains(out, "memory/archive/stale.md") || h.memFile("stale") != "" {
		t.Fatalf("archive: %s", out)
	}
	first, err := os.ReadFile(filepath.Join(h.env.Memory.ArchiveDir(), "stale.md"))
	if err != nil || !strings.Contains(string(first), "first stale fact") {
		t.Fatalf("archived file: %q %v", first, err)
	}
	if s := h.ok("memory_search", map[string]any{"query": "stale"}); strings.Contains(s, "stale (") {
		t.Fatalf("search found an archived memory: %s", s)
	}
	if msg := h.fail("memory_read", map[string]any{"name": "stale"}); !strings.Contains(msg, "no memory named stale") {
		t.Fatal(msg)
	}
	// A second memory of that name archived later does not replace the first.
	h.ok("remember", map[string]any{"name": "stale", "text": "second stale fact"})
	h.ok("memory_archive", map[string]any{"name": "stale"})
	entries, _ := os.ReadDir(h.env.Memory.ArchiveDir())
	if len(entries) != 2 {
		t.Fatalf("archive holds %d files", len(entries))
	}
	again, _ := os.ReadFile(filepath.Join(h.env.Memory.ArchiveDir(), "stale.md"))
	if string(again) != string(first) {
		t.Fatal("the first archived memory was replaced")
	}
	if msg := h.fail("memory_archive", map[string]any{"name": "stale"}); !strings.Contains(msg, "no memory named stale") {
		t.Fatal(msg)
	}
}

func TestMemoryReadLabelsTheMemoryAsDataWithItsAge(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	h.ok("remember", map[string]any{"name": "prefs", "text": "The user prefers tabs.", "type": "user"})
	out := h.ok("memory_read", map[string]any{"name": "prefs"})
	for _, want := range []string{"not instructions from the user", "Created ", "(just now)", "<memory name=\"prefs\">\n---\n", "The user prefers tabs.\n</memory>"} {
		if !strings.Contains(out, want) {
			t.Errorf("memory_read lacks %q:\n%s", want, out)
		}
	}
	if msg := h.fail("memory_read", map[string]any{"name": "pref"}); !strings.Contains(msg, "Similar names: prefs") {
		t.Fatal(msg)
	}
}

func TestMemorySearchToolLimitsAndLists(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	if out := h.ok("memory_search", map[string]any{"query": ""}); !strings.Contains(out, "No memories yet") {
		t.Fatal(out)
	}
	for i := 0; i < memory.MaxHits+2; i++ {
		h.ok("remember", map[string]any{"name": fmt.Sprintf("note-%02d", i), "text": "line one about deploys\nline two about deploys\nline three about deploys\nline four about deploys"})
	}
	h.ok("remember", map[string]any{"name": "deploys", "text": "the main one", "description": "how we deploy"})
	out := h.ok("memory_search", map[string]any{"query": "Deploys"})
	if !strings.HasPrefix(out, fmt.Sprintf("%d of %d memories match", memory.MaxHits+3, memory.MaxHits+3)) {
		t.Fatalf("header: %s", out)
	}
	if i := strings.Index(out, "\ndeploys ("); i < 0 || i > strings.Index(out, "\nnote-") {
		t.Fatalf("the name hit is not first:\n%s", out)
	}
	if !strings.Contains(out, "truncated: 3 more memories match") {
		t.Fatalf("no truncated note:\n%s", out)
	}
	if n := strings.Count(out, "about deploys"); n != (memory.MaxHits-1)*memory.MaxExcerptLines {
		t.Fatalf("%d excerpt lines:\n%s", n, out)
	}
	list := h.ok("memory_search", map[string]any{"query": "  "})
	if !strings.HasPrefix(list, fmt.Sprintf("%d memories, newest first", memory.MaxHits+3)) || !strings.Contains(list, "deploys (updated ") || !strings.Contains(list, ": how we deploy") {
		t.Fatalf("list: %s", list)
	}
}

// Memory writes belong to the request's undo checkpoint: undo removes a
// new memory, restores an updated one, and brings an archived one back.
func TestUndoPutsMemoriesBack(t *testing.T) {
	h := newMemoryHarness(t)
	h.env.Settings.Mode = protocol.ModeBypass
	// As stores.Open does: undo may write in the workspace and the memory folder.
	if err := os.MkdirAll(h.env.Memory.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := undo.Open(h.dir, undo.Options{Dir: t.TempDir(), Roots: []string{h.dir, h.env.Memory.Dir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h.env.Checkpoints = st
	call := func(req, name string, args string) {
		t.Helper()
		r := h.reg.Invoke(context.Background(), &tool.Call{Name: name, Args: []byte(args), RequestID: req, Budget: tool.NewBudget(0, 0), Session: h.sess, Env: h.env})
		if r.IsError {
			t.Fatalf("%s: %s", name, r.Content)
		}
	}
	call("a", "remember", `{"name":"kept","text":"version one"}`)
	v1 := h.memFile("kept")
	call("b", "remember", `{"name":"kept","text":"version two"}`)
	call("b", "remember", `{"name":"fresh","text":"new in b"}`)
	call("b", "memory_archive", `{"name":"kept"}`)
	if h.memFile("kept") != "" || h.memFile("fresh") == "" {
		t.Fatal("setup")
	}
	rep, err := st.Undo("")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if h.memFile("kept") != v1 || h.memFile("fresh") != "" {
		t.Fatalf("after undo: kept=%q fresh=%q", h.memFile("kept"), h.memFile("fresh"))
	}
	if _, err := os.Stat(h.env.Memory.ArchiveDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the archive folder the request made is still there: %v", err)
	}
}
