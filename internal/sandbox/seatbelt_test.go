package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Seatbelt profile's text, rule by rule: what it must say, and that
// no path ever enters the text itself (only parameters).
func TestSeatbeltProfile(t *testing.T) {
	root := t.TempDir()
	ws, cache, tool, tmp := filepath.Join(root, "ws"), filepath.Join(root, "cache"), filepath.Join(root, "home", ".gitconfig"), filepath.Join(root, "tmp")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), cache, filepath.Dir(tool), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(tool, []byte("[user]\n"), 0o644)
	s := Spec{Level: LevelSeatbelt, Folders: []Folder{{Path: ws}}, Writable: []string{cache}, ReadOnly: []string{tool},
		Hidden: []string{filepath.Join(root, "home"), "/Users"}, TempDir: tmp}

	p := SeatbeltProfile(s)
	params := map[string]string{}
	for _, kv := range p.Params {
		k, v, _ := strings.Cut(kv, "=")
		params[v] = k
	}
	key := func(path string) string {
		t.Helper()
		k, ok := params[path]
		if !ok {
			t.Fatalf("%s is not a parameter: %q", path, p.Params)
		}
		return `(param "` + k + `")`
	}
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		"(allow process-exec process-fork)",
		"(allow signal (target same-sandbox))",
		"(allow process-info* (target same-sandbox))",
		"(deny file-read* (subpath " + key(filepath.Join(root, "home")) + "))",
		"(deny file-read* (subpath " + key("/Users") + "))",
		"(literal " + key(tool) + ")",
		"(allow file-write* (subpath " + key(ws) + ") (subpath " + key(cache) + ") (subpath " + key(tmp) + ") (literal \"/dev/null\")",
		"(deny file-write* (subpath " + key(filepath.Join(ws, ".git", "hooks")) + ") (literal " + key(filepath.Join(ws, ".git", "config")) + ")",
		"(deny network* (remote unix-socket))",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the profile lacks %q:\n%s", want, p.Text)
		}
	}
	// Later rules win in Seatbelt: the exceptions come after what they
	// make an exception to.
	order := []string{"(allow file-read* file-test-existence)", "(deny file-read* (subpath", "(allow file-read* (subpath", "(allow file-write*", "(deny file-write*"}
	last := -1
	for _, o := range order {
		i := strings.Index(p.Text, o)
		if i <= last {
			t.Errorf("%q is out of order in:\n%s", o, p.Text)
		}
		last = i
	}
	if strings.Contains(p.Text, root) {
		t.Errorf("a path is in the profile's text instead of a parameter:\n%s", p.Text)
	}
	if strings.Contains(p.Text, "network-outbound") {
		t.Errorf("no network was asked for, yet the profile allows some:\n%s", p.Text)
	}

	s.Network = true
	net := SeatbeltProfile(s).Text
	if !strings.Contains(net, `(allow network-outbound (remote ip "*:*"))`) || strings.Contains(net, "(allow network*") || strings.Contains(net, "(allow network-outbound)") {
		t.Errorf("with network, only IP may be allowed:\n%s", net)
	}
	if i, j := strings.Index(net, "(allow network-outbound"), strings.Index(net, "(deny network* (remote unix-socket))"); j < i {
		t.Errorf("Unix sockets must stay denied after the network is allowed:\n%s", net)
	}

	// A .git file is protected as a whole; a folder without .git has
	// nothing to protect (git init in it must work).
	os.RemoveAll(filepath.Join(ws, ".git"))
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	withFile := SeatbeltProfile(s)
	if !strings.Contains(withFile.Text, "(deny file-write* (literal ") {
		t.Errorf("a .git file is not protected:\n%s", withFile.Text)
	}
	os.Remove(filepath.Join(ws, ".git"))
	if plain := SeatbeltProfile(s).Text; strings.Contains(plain, "(deny file-write*") {
		t.Errorf("a folder without .git protects something:\n%s", plain)
	}
}
