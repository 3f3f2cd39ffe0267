package search

import (
	"slices"
	"strings"
	"testing"
)

func TestGlobAllows(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		yes, no []string
	}{
		{"*.go", []string{"main.go", "a/b/c.go", ".hidden.go"}, []string{"main.go.txt", "a/go", "x.gox"}},
		{"main.go", []string{"main.go", "cmd/main.go"}, []string{"amain.go", "main.go/x"}},
		{"cmd/*.go", []string{"cmd/main.go"}, []string{"cmd/sub/x.go", "x/cmd/main.go", "main.go"}},
		{"/main.go", []string{"main.go"}, []string{"cmd/main.go"}},
		{"cmd/**/*.go", []string{"cmd/main.go", "cmd/a/b/x.go"}, []string{"main.go", "cmdx/a.go"}},
		{"**/*.go", []string{"main.go", "a/b.go"}, []string{"a/b.txt"}},
		{"**/test/*.go", []string{"test/a.go", "x/y/test/a.go"}, []string{"test/z/a.go", "xtest/a.go"}},
		{"cmd/**", []string{"cmd/a", "cmd/a/b"}, []string{"cmd", "cmdx/a"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"./cmd/*.go", []string{"cmd/main.go"}, []string{"main.go"}},
		{"*.{ts,tsx}", []string{"a.ts", "b/c.tsx"}, []string{"a.js", "a.t"}},
		{"file?.txt", []string{"file1.txt"}, []string{"file10.txt", "file/.txt"}},
		{"[ab].txt", []string{"a.txt", "b.txt"}, []string{"c.txt", "ab.txt"}},
		{"[!ab].txt", []string{"c.txt"}, []string{"a.txt", "/.txt"}},
		{"[a-c]x", []string{"bx"}, []string{"dx", "-x"}},
		{`\*.txt`, []string{"*.txt"}, []string{"a.txt"}},
		{"a**b", []string{"axxb"}, []string{"ax/xb"}},
		{"a,b", []string{"a,b"}, []string{"a", "b"}},
		{"docs/", []string{"docs/a.md", "x/docs/y/z.md"}, []string{"docs", "docsy/a.md"}},
		{"src/docs/", []string{"src/docs/a.md"}, []string{"docs/a.md", "x/src/docs/a"}},
		{"!*_test.go", []string{"a.go", "x/b.go"}, []string{"a_test.go", "x/b_test.go"}},
		{"!vendor", []string{"a.go", "vendorx/a.go"}, []string{"vendor/a.go", "x/vendor/y/a.go", "vendor"}},
		{"!gen/", []string{"gen", "a.go"}, []string{"gen/a.go", "x/gen/b.go"}},
		{"!cmd/*.go", []string{"cmd/x.txt", "a.go"}, []string{"cmd/main.go"}},
		{"ünï*.txt", []string{"ünïcode.txt"}, []string{"unicode.txt"}},
		{"a.b+c(d)", []string{"a.b+c(d)"}, []string{"aXb+c(d)"}},
	} {
		g, err := CompileGlob(tc.pattern)
		if err != nil {
			t.Errorf("CompileGlob(%q): %v", tc.pattern, err)
			continue
		}
		for _, p := range tc.yes {
			if !g.Allows(p) {
				t.Errorf("%q should allow %q", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.Allows(p) {
				t.Errorf("%q should not allow %q", tc.pattern, p)
			}
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"", "names no file"},
		{"!", "names no file"},
		{"/", "names no file"},
		{"*.{ts", "never closed"},
		{"[abc", "never closed"},
		{"{a,{b,c}}", "nested"},
		{`a\`, "lone backslash"},
		{"[z-a]", "invalid character class range"},
	} {
		_, err := CompileGlob(tc.pattern)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompileGlob(%q) = %v, want an error with %q", tc.pattern, err, tc.want)
		}
	}
}

// TestGlobNarrowing checks what is handed to ripgrep: only file-name
// patterns as a type (which cannot override .gitignore), never an
// including --glob.
func TestGlobNarrowing(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		args    []string
		litDir  string
	}{
		{"*.go", []string{"--type-add", "tetherglob:*.go", "--type", "tetherglob"}, ""},
		{"src/**/*.{ts,tsx}", []string{"--type-add", "tetherglob:*.{ts,tsx}", "--type", "tetherglob"}, "src"},
		{"cmd/tether/main.go", []string{"--type-add", "tetherglob:main.go", "--type", "tetherglob"}, "cmd/tether"},
		{"src/docs/", nil, "src/docs"},
		{"*", nil, ""},
		{"**", nil, ""},
		{"src/**", nil, "src"},
		{"[ab].go", nil, ""},
		{"a:b.go", nil, ""},
		{"*.{,go}", nil, ""},
		{"{a/x,b}/*.go", nil, ""},
		{"../etc/*.conf", []string{"--type-add", "tetherglob:*.conf", "--type", "tetherglob"}, ""},
		{"a/../b/*.go", []string{"--type-add", "tetherglob:*.go", "--type", "tetherglob"}, "a"},
		{"!*_test.go", []string{"--glob", "!*_test.go"}, ""},
		{"!cmd/*.go", nil, ""},
	} {
		g, err := CompileGlob(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.rgArgs(); !slices.Equal(got, tc.args) {
			t.Errorf("%q: rg args %q, want %q", tc.pattern, got, tc.args)
		}
		if got := g.literalDir(); got != tc.litDir {
			t.Errorf("%q: literal dir %q, want %q", tc.pattern, got, tc.litDir)
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, s := range []string{"*.go", "a/**/b", "[!a-z]?", "{x,y}/", `!\[`, "**/", "[]]"} {
		f.Add(s, "a/b.go")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := CompileGlob(pattern)
		if err != nil {
			return
		}
		g.Allows(path)
		g.rgArgs()
		if d := g.literalDir(); strings.Contains("/"+d+"/", "/../") {
			t.Fatalf("%q: literal dir %q climbs out", pattern, d)
		}
	})
}
