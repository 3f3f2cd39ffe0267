package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestCheckNameRefusesHostileNames(t *testing.T) {
	for _, tc := range []struct{ name, why string }{
		{"", "empty"},
		{"../secrets", "path separator"},
		{"..", "'..'"},
		{"a..b", "'..'"},
		{".hidden", "hidden"},
		{".", "hidden"},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{"/etc/passwd", "path separator"},
		{"C:evil", "upper-case"},
		{"c:evil", `':'`},
		{"-rf", "starts or ends"},
		{"trailing.", "starts or ends"},
		{"trailing-", "starts or ends"},
		{"Build-Cache", "lower case (build-cache)"},
		{"with space", `' '`},
		{"nul\x00byte", `'\x00'`},
		{"line\nbreak", `'\n'`},
		{"tab\tname", `'\t'`},
		{"~root", `'~'`},
		{"$HOME", `'$'`},
		{"caf\u00e9", "non-ASCII"},
		{"\u202etxt.exe", "non-ASCII"},
		{"con", "device name"},
		{"nul.txt", "device name"},
		{"lpt1", "device name"},
		{strings.Repeat("a", MaxNameLen+1), "over 64"},
		{"archive/x", "path separator"},
		{"x.md/", "path separator"},
	} {
		got, err := CheckName(tc.name)
		var ne *NameError
		if !errors.As(err, &ne) {
			t.Errorf("CheckName(%q) = %q, %v; want a NameError", tc.name, got, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) {
			t.Errorf("CheckName(%q): %v; want it to say %q", tc.name, err, tc.why)
		}
	}
}

func TestCheckNameAcceptsSlugs(t *testing.T) {
	for in, want := range map[string]string{
		"build-cache":                    "build-cache",
		"go1.22-notes":                   "go1.22-notes",
		"a":                              "a",
		"snake_case":                     "snake_case",
		"deploy.md":                      "deploy",
		"console":                        "console",
		strings.Repeat("a", MaxNameLen):  strings.Repeat("a", MaxNameLen),
		"x" + strings.Repeat("1", 63-1):  "x" + strings.Repeat("1", 62),
		"archive":                        "archive",
		"v2":                             "v2",
		"com10":                          "com10",
		"release.2026-12":                "release.2026-12",
		"a-b_c.d":                        "a-b_c.d",
		"0-starts-with-digit":            "0-starts-with-digit",
		"ends-with-digit-9":              "ends-with-digit-9",
		"mixed-123-and-letters-abc-0987": "mixed-123-and-letters-abc-0987",
	} {
		got, err := CheckName(in)
		if err != nil || got != want {
			t.Errorf("CheckName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func page(t *testing.T, raw string) Page {
	t.Helper()
	p, err := Parse([]byte(raw))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, raw)
	}
	return p
}

func TestRenderParsesBack(t *testing.T) {
	m := Meta{
		Description: "How the: build cache works # really",
		Type:        TypeProcedural,
		Keywords:    []string{"cache", "yes", "12", "caché"},
		Related:     []string{"ci"},
		Created:     t0,
		Updated:     t0.Add(time.Hour),
		Source:      "request r1",
		Pages:       []string{"https://example.com/a,b"},
	}
	raw := Render(Page{Meta: m, Body: "Line one.\n\n- a list\n"})
	p := page(t, string(raw))
	p.Meta.extra = nil
	if fmt.Sprint(p.Meta) != fmt.Sprint(m) {
		t.Fatalf("round trip:\n got %+v\nwant %+v\n%s", p.Meta, m, raw)
	}
	if p.Body != "Line one.\n\n- a list\n" || p.BodyLine != 12 {
		t.Fatalf("body %q at line %d\n%s", p.Body, p.BodyLine, raw)
	}
	if !strings.HasPrefix(string(raw), "---\ndescription: ") || !strings.Contains(string(raw), "\n---\n\nLine one.") {
		t.Fatalf("layout:\n%s", raw)
	}
}

func TestParseKeepsFieldsAPersonAdded(t *testing.T) {
	raw := "---\ntype: project\nowner: ana # the team lead\ntags:\n  - x\n---\nbody\n"
	p := page(t, raw)
	next, err := Merge("n", &p, t0, Update{Text: "new body"}, Stamp{Now: t0, Request: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(Render(next))
	if !strings.Contains(out, "owner: ana # the team lead\n") || !strings.Contains(out, "tags:\n  - x\n") {
		t.Fatalf("a field a person added was lost:\n%s", out)
	}
}

func TestParseWithoutFrontmatterIsAllText(t *testing.T) {
	p := page(t, "just text\n---\nmore\n")
	if p.Body != "just text\n---\nmore\n" || p.BodyLine != 1 || p.Meta.Type != "" {
		t.Fatalf("%+v", p)
	}
	p = page(t, "\ufeff---\r\ntype: user\r\n---\r\n\r\nCRLF body\r\n")
	if p.Meta.Type != TypeUser || p.Body != "CRLF body\r\n" || p.BodyLine != 5 {
		t.Fatalf("CRLF with BOM: %+v", p)
	}
}

func TestParseReportsBrokenFrontmatterWithItsLine(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		line int
		msg  string
	}{
		{"---\ntype: project\n", 1, "never closed"},
		{"---\ntype: project\ndescription: a: b\n---\nx\n", 3, "not valid YAML"},
		{"---\ntype: project\n  bad: indent\n---\nx\n", 3, "not valid YAML"},
		{"---\ntype: project\ndescription: [unclosed\nkeywords: a\n---\nx\n", 3, "expected ',' or ']'"},
		// Opened on the first line, the list is reported where YAML gave up.
		{"---\ndescription: [unclosed\n---\nx\n", 3, "expected ',' or ']'"},
		{"---\n: no key\n---\nx\n", 2, "not valid YAML"},
		{"---\ntype: project\nmap:\n  a: b\n c: d\n---\nx\n", 5, "not valid YAML"},
		{"---\ntype: project\n\t- tab\n---\nx\n", 3, "not valid YAML"},
		{"---\n- a\n- b\n---\nx\n", 2, "field: value"},
		{"---\ntype: project\ntype: user\n---\nx\n", 3, "appears twice"},
		{"---\n\nkeywords: {a: b}\n---\nx\n", 3, "keywords"},
		{"---\ndescription: [a, b]\n---\nx\n", 2, "single value"},
		{"---\ntype: user\ncreated: last tuesday\n---\nx\n", 3, "not a date"},
	} {
		_, err := Parse([]byte(tc.raw))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want a ParseError", tc.raw, err)
			continue
		}
		if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
			t.Errorf("Parse(%q) = line %d %q; want line %d and %q", tc.raw, pe.Line, pe.Msg, tc.line, tc.msg)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestMergeKeepsRemovesOrReplacesEachField(t *testing.T) {
	cur := Page{Meta: Meta{
		Description: "old description", Type: TypeProject,
		Keywords: []string{"k1", "k2"}, Related: []string{"other"},
		Created: t0, Updated: t0, Source: "request r0",
	}, Body: "old"}
	now := t0.Add(48 * time.Hour)
	for _, tc := range []struct {
		name  string
		u     Update
		check func(m Meta) bool
	}{
		{"omitted fields are kept", Update{Text: "new"}, func(m Meta) bool {
			return m.Description == "old description" && m.Type == TypeProject && fmt.Sprint(m.Keywords) == "[k1 k2]" && fmt.Sprint(m.Related) == "[other]"
		}},
		{"empty description is removed", Update{Text: "new", Description: ptr("")}, func(m Meta) bool {
			return m.Description == "" && m.Type == TypeProject
		}},
		{"description is replaced, on one line", Update{Text: "new", Description: ptr(" two\n lines ")}, func(m Meta) bool {
			return m.Description == "two lines"
		}},
		{"empty type is removed", Update{Text: "new", Type: ptr(Type(""))}, func(m Meta) bool { return m.Type == "" }},
		{"type is replaced", Update{Text: "new", Type: ptr(TypeUser)}, func(m Meta) bool { return m.Type == TypeUser }},
		{"empty keywords are removed", Update{Text: "new", Keywords: ptr([]string{})}, func(m Meta) bool { return len(m.Keywords) == 0 }},
		{"keywords are replaced, split and unique", Update{Text: "new", Keywords: ptr([]string{"a, b", "A", " c "})}, func(m Meta) bool {
			return fmt.Sprint(m.Keywords) == "[a b c]"
		}},
		{"empty related is removed", Update{Text: "new", Related: ptr([]string{})}, func(m Meta) bool { return len(m.Related) == 0 }},
		{"related is replaced without itself", Update{Text: "new", Related: ptr([]string{"x", "self", "y.md"})}, func(m Meta) bool {
			return fmt.Sprint(m.Related) == "[x y]"
		}},
	} {
		got, err := Merge("self", &cur, t0, tc.u, Stamp{Now: now, Request: "r9"})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(got.Meta) || got.Body != "new" {
			t.Errorf("%s: got %+v body %q", tc.name, got.Meta, got.Body)
		}
	}
	if cur.Meta.Description != "old description" || len(cur.Meta.Keywords) != 2 {
		t.Fatalf("Merge changed the page it merged over: %+v", cur.Meta)
	}
	for _, u := range []Update{
		{Text: "  \n"},
		{Text: "x", Type: ptr(Type("notes"))},
		{Text: "x", Related: ptr([]string{"../etc"})},
	} {
		if _, err := Merge("self", &cur, t0, u, Stamp{Now: now}); err == nil {
			t.Errorf("Merge(%+v) accepted it", u)
		}
	}
}

func TestMergeStampsCreatedUpdatedAndSource(t *testing.T) {
	now := t0.Add(72*time.Hour + 500*time.Millisecond)
	fresh, err := Merge("n", nil, time.Time{}, Update{Text: "x"}, Stamp{Now: now, Request: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	want := now.Truncate(time.Second)
	if !fresh.Meta.Created.Equal(want) || !fresh.Meta.Updated.Equal(want) || fresh.Meta.Source != "request r1" {
		t.Fatalf("new memory stamps: %+v", fresh.Meta)
	}

	// A created the model writes into the text is ignored; the page's own stays.
	cur := Page{Meta: Meta{Created: t0, Updated: t0, Source: "request r0"}, Body: "old"}
	u := Update{Text: "---\nname: n\ncreated: 1999-01-01T00:00:00Z\nsource: web-is-fine\ntype: user\ndescription: from text\n---\nthe text\n", Description: ptr("from argument")}
	ignored, err := u.FromText()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ignored) != "[name created source]" {
		t.Fatalf("ignored %v", ignored)
	}
	got, err := Merge("n", &cur, t0, u, Stamp{Now: now, Request: "r2"})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Meta.Created.Equal(t0) || !got.Meta.Updated.Equal(want) || got.Meta.Source != "request r2" {
		t.Fatalf("update stamps: %+v", got.Meta)
	}
	if got.Meta.Type != TypeUser || got.Meta.Description != "from argument" || got.Body != "the text" {
		t.Fatalf("fields from the text: %+v %q", got.Meta, got.Body)
	}
	if _, err := (&Update{Text: "---\nowner: x\n---\nbody"}).FromText(); err == nil || !strings.Contains(err.Error(), `"owner"`) {
		t.Fatalf("an unknown field in the text's frontmatter: %v", err)
	}

	// A hand-made page without created takes its file's time.
	mod := t0.Add(-time.Hour)
	got, _ = Merge("n", &Page{Body: "hand"}, mod, Update{Text: "x"}, Stamp{Now: now, Request: "r3"})
	if !got.Meta.Created.Equal(mod) {
		t.Fatalf("created of a page without one: %v", got.Meta.Created)
	}

	// Web content stamps source web with the pages, and it stays web.
	web, _ := Merge("n", &cur, t0, Update{Text: "x"}, Stamp{Now: now, Request: "r4", Untrusted: []string{"https://a.test/1", "https://a.test/1", "https://b.test/"}})
	if web.Meta.Source != SourceWeb || fmt.Sprint(web.Meta.Pages) != "[https://a.test/1 https://b.test/]" {
		t.Fatalf("web stamp: %+v", web.Meta)
	}
	later, _ := Merge("n", &web, t0, Update{Text: "y"}, Stamp{Now: now, Request: "r5"})
	if later.Meta.Source != SourceWeb || len(later.Meta.Pages) != 2 {
		t.Fatalf("a later write dropped the web stamp: %+v", later.Meta)
	}
}

func TestSizeCapCountsTheFrontmatter(t *testing.T) {
	const max = 1024
	body := strings.Repeat("x", max-10)
	if err := CheckSize([]byte(body), max); err != nil {
		t.Fatalf("the text alone fits: %v", err)
	}
	p, err := Merge("n", nil, time.Time{}, Update{Text: body, Description: ptr("a description")}, Stamp{Now: t0, Request: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	raw := Render(p)
	var se *SizeError
	if err := CheckSize(raw, max); !errors.As(err, &se) || se.Size != len(raw) || se.Max != max {
		t.Fatalf("page of %d bytes under a cap of %d: %v", len(raw), max, err)
	}
	if err := CheckSize(raw, len(raw)); err != nil {
		t.Fatalf("a page exactly at the cap: %v", err)
	}
	if err := CheckSize(make([]byte, DefaultMaxBytes+1), 0); err == nil {
		t.Fatal("the default cap did not apply")
	}
}

// mem makes an in-memory memory for search tests.
func mem(name, desc string, keywords []string, body string, updated time.Time) *Memory {
	m := &Memory{Name: name, Page: Page{Meta: Meta{Description: desc, Keywords: keywords, Updated: updated}, Body: body, BodyLine: 7}}
	m.index()
	return m
}

func TestSimilarNames(t *testing.T) {
	ms := []*Memory{
		mem("build-cache", "", nil, "", t0),
		mem("build-caching-notes", "", nil, "", t0),
		mem("release-process", "how we ship", nil, "", t0),
		mem("ci", "the pipeline and its cache", []string{"build"}, "", t0),
		mem("deploy-keys", "", nil, "", t0),
	}
	got := names(Similar(ms, "build-cache", 3))
	if got != "[ci build-caching-notes]" { // ci's keyword and description hold both words
		t.Errorf("Similar(build-cache) = %s", got)
	}
	if got := names(Similar(ms, "bulid-cache", 3)); !strings.HasPrefix(got, "[build-cache ") {
		t.Errorf("a misspelt name: %s", got)
	}
	if got := names(Similar(ms, "shipping", 3)); got != "[]" {
		t.Errorf("Similar(shipping) = %s, want none", got)
	}
	if got := names(Similar(ms, "release-steps", 1)); got != "[release-process]" {
		t.Errorf("Similar(release-steps) = %s", got)
	}
}

func names[T interface{ name() string }](xs []T) string {
	var out []string
	for _, x := range xs {
		out = append(out, x.name())
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (m *Memory) name() string { return m.Name }
func (h Hit) name() string     { return h.Name }

func TestSearchRanksNameAndKeywordHitsFirst(t *testing.T) {
	ms := []*Memory{
		mem("text-only", "", nil, "we flush the cache nightly\nunrelated\n", t0.Add(3*time.Hour)),
		mem("described", "about the cache", nil, "nothing here\n", t0.Add(2*time.Hour)),
		mem("keyworded", "", []string{"Cache"}, "x\n", t0),
		mem("cache", "", nil, "exact name\n", t0),
		mem("cache-warming", "", nil, "cache cache cache\n", t0),
		mem("no-match", "", nil, "nothing\n", t0.Add(9*time.Hour)),
	}
	res := Search(ms, "CACHE", MaxHits, MaxExcerptLines)
	if got := names(res.Hits); got != "[cache cache-warming keyworded described text-only]" || res.Total != 5 {
		t.Fatalf("ranking: %s (total %d)", got, res.Total)
	}
	if res.Hits[2].Field != FieldKeywords || res.Hits[3].Field != FieldDescription || res.Hits[4].Field != FieldText {
		t.Fatalf("fields: %v %v %v", res.Hits[2].Field, res.Hits[3].Field, res.Hits[4].Field)
	}
	if ex := res.Hits[4].Excerpts; len(ex) != 1 || ex[0].Line != 7 || ex[0].Text != "we flush the cache nightly" {
		t.Fatalf("excerpt: %+v", ex)
	}
	// Words apart match too, after the whole phrase; the name's dashes are spaces.
	res = Search([]*Memory{
		mem("a", "", nil, "warm the build, then the cache\n", t0),
		mem("b", "", nil, "the build cache\n", t0),
		mem("build-cache", "", nil, "x\n", t0),
	}, "build cache", MaxHits, MaxExcerptLines)
	if got := names(res.Hits); got != "[build-cache b a]" {
		t.Fatalf("phrase before words: %s", got)
	}
	if got := Search(ms, "   ", MaxHits, MaxExcerptLines); got.Total != 0 {
		t.Fatalf("an empty query found %d", got.Total)
	}
}

func TestSearchLimits(t *testing.T) {
	var ms []*Memory
	var body strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&body, "line %d mentions needle\n", i)
	}
	for i := 0; i < MaxHits+5; i++ {
		ms = append(ms, mem(fmt.Sprintf("m%02d", i), "", nil, body.String(), t0.Add(time.Duration(i)*time.Minute)))
	}
	res := Search(ms, "needle", MaxHits, MaxExcerptLines)
	if len(res.Hits) != MaxHits || res.Total != MaxHits+5 {
		t.Fatalf("%d hits of %d, want %d of %d", len(res.Hits), res.Total, MaxHits, MaxHits+5)
	}
	if res.Hits[0].Name != fmt.Sprintf("m%02d", MaxHits+4) {
		t.Fatalf("among equals the newest comes first, got %s", res.Hits[0].Name)
	}
	for _, h := range res.Hits {
		if len(h.Excerpts) != MaxExcerptLines {
			t.Fatalf("%s shows %d lines", h.Name, len(h.Excerpts))
		}
	}
	long := mem("long", "", nil, strings.Repeat("é", 200)+" needle "+strings.Repeat("z", 400)+"\n", t0)
	ex := Search([]*Memory{long}, "needle", 1, 1).Hits[0].Excerpts[0].Text
	if len(ex) > maxExcerptWidth+2*len("…") || !strings.Contains(ex, "needle") {
		t.Fatalf("long line excerpt (%d bytes): %q", len(ex), ex)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStoreListsLiveMemoriesAndReportsBrokenOnes(t *testing.T) {
	s := Open(t.TempDir())
	if ms, err := s.List(); err != nil || len(ms) != 0 {
		t.Fatalf("a missing folder: %v %v", ms, err)
	}
	writeFile(t, s.Path("good"), "---\ntype: project\nupdated: 2026-11-02T00:00:00Z\n---\n\ngood text\n")
	writeFile(t, s.Path("older"), "---\nupdated: 2026-10-02T00:00:00Z\n---\nolder text\n")
	broken := "---\ntype: project\ndescription: oops: colon\n---\nbroken text\n"
	writeFile(t, s.Path("broken"), broken)
	writeFile(t, filepath.Join(s.Dir(), "Bad Name.md"), "hand made\n")
	writeFile(t, filepath.Join(s.Dir(), ".hidden.md"), "x\n")
	writeFile(t, filepath.Join(s.Dir(), "notes.txt"), "x\n")
	writeFile(t, filepath.Join(s.ArchiveDir(), "gone.md"), "archived text\n")
	ms, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		state := "ok"
		if m.Err != nil {
			state = m.Err.Error()
		}
		got = append(got, m.Name+": "+state)
	}
	if len(ms) != 4 || indexOf(ms, "good") > indexOf(ms, "older") || ms[indexOf(ms, "Bad Name")].Err == nil || ms[indexOf(ms, "good")].Err != nil {
		t.Fatalf("list: %q", got)
	}
	m, err := s.Load("broken")
	if err != nil {
		t.Fatal(err)
	}
	var pe *ParseError
	if !errors.As(m.Err, &pe) || pe.Line != 3 || string(m.Raw) != broken {
		t.Fatalf("broken memory: %v %q", m.Err, m.Raw)
	}
	if res := Search(ms, "broken text", 10, 3); res.Total != 1 {
		t.Fatalf("a broken memory's text is not searched: %+v", res)
	}
	if res := Search(ms, "archived", 10, 3); res.Total != 0 {
		t.Fatal("search found an archived memory")
	}
	if _, err := s.Load("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}

	// The cache follows changes on disk.
	writeFile(t, s.Path("good"), "---\ntype: user\n---\nchanged text, longer than before\n")
	if m, _ := s.Load("good"); m.Meta.Type != TypeUser {
		t.Fatalf("a changed file was served from the cache: %+v", m.Meta)
	}
	if err := os.Remove(s.Path("older")); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.List(); len(ms) != 3 || len(s.cache) != 3 {
		t.Fatalf("after a removal: %d listed, %d cached", len(ms), len(s.cache))
	}
}

func indexOf(ms []*Memory, name string) int {
	for i, m := range ms {
		if m.Name == name {
			return i
		}
	}
	return -1
}

func TestStoreHoldsOnlyItsMemoryFiles(t *testing.T) {
	dir := t.TempDir()
	s := Open(filepath.Join(dir, "memory"))
	for p, want := range map[string]bool{
		s.Path("a"):                                  true,
		filepath.Join(s.ArchiveDir(), "a.md"):        true,
		filepath.Join(s.Dir(), "sub", "a.md"):        false,
		filepath.Join(s.ArchiveDir(), "deep/x.md"):   false,
		filepath.Join(dir, "a.md"):                   false,
		filepath.Join(s.Dir(), "a.txt"):              false,
		filepath.Join(dir, "memory-other", "a.md"):   false,
		filepath.Join(s.Dir(), "..", "memory2/a.md"): false,
	} {
		if got := s.Holds(p); got != want {
			t.Errorf("Holds(%s) = %v", p, got)
		}
	}
	if got := s.Display(filepath.Join(s.ArchiveDir(), "a.md")); got != "memory/archive/a.md" {
		t.Errorf("Display = %q", got)
	}
}

func TestArchivePathNeverReplaces(t *testing.T) {
	s := Open(t.TempDir())
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	first := s.ArchivePath("x", now)
	if first != filepath.Join(s.ArchiveDir(), "x.md") {
		t.Fatal(first)
	}
	writeFile(t, first, "one")
	second := s.ArchivePath("x", now)
	if second != filepath.Join(s.ArchiveDir(), "x.20261201-100000.md") {
		t.Fatal(second)
	}
	writeFile(t, second, "two")
	if third := s.ArchivePath("x", now); third != filepath.Join(s.ArchiveDir(), "x.20261201-100000-1.md") {
		t.Fatal(third)
	}
}

// Every change to the folder shows in the next listing, however it was
// made: in place with the same size (an editor saving), by rename (an
// atomic write), by removal; with the folder watched and without.
func TestStoreSeesChangesMadeBehindItsBack(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			s := Open(t.TempDir())
			defer s.Close()
			s.noWatch = !watch
			body := func() string {
				t.Helper()
				ms, err := s.List()
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, m := range ms {
					out = append(out, m.Name+"="+strings.TrimSpace(m.Body))
				}
				return strings.Join(out, ",")
			}
			if got := body(); got != "" {
				t.Fatalf("empty: %q", got)
			}
			writeFile(t, s.Path("a"), "---\ntype: user\n---\naaaa\n")
			if got := body(); got != "a=aaaa" {
				t.Fatalf("created: %q", got)
			}
			if watch && runtime.GOOS == "linux" && !s.complete {
				t.Fatal("the folder is not watched")
			}
			writeFile(t, s.Path("a"), "---\ntype: user\n---\nbbbb\n")
			if got := body(); got != "a=bbbb" {
				t.Fatalf("changed in place, same size: %q", got)
			}
			tmp := filepath.Join(s.Dir(), ".b.md.tmp")
			writeFile(t, tmp, "cccc\n")
			if err := os.Rename(tmp, s.Path("b")); err != nil {
				t.Fatal(err)
			}
			if got := body(); got != "a=bbbb,b=cccc" && got != "b=cccc,a=bbbb" {
				t.Fatalf("renamed in: %q", got)
			}
			if err := os.MkdirAll(s.ArchiveDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(s.Path("a"), filepath.Join(s.ArchiveDir(), "a.md")); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(s.Path("b")); err != nil {
				t.Fatal(err)
			}
			if got := body(); got != "" {
				t.Fatalf("moved away and removed: %q", got)
			}
			// The folder itself removed and made again.
			if err := os.RemoveAll(s.Dir()); err != nil {
				t.Fatal(err)
			}
			if got := body(); got != "" {
				t.Fatalf("folder removed: %q", got)
			}
			writeFile(t, s.Path("d"), "dddd\n")
			if got := body(); got != "d=dddd" {
				t.Fatalf("folder made again: %q", got)
			}
		})
	}
}
