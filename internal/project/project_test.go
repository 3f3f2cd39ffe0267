package project

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tether", "tether"},
		{"my project", "my-project"},
		{"a  /\\:*?\"<>|b", "a-b"},
		{"..", "root"},
		{".hidden", "hidden"},
		{".-x", "x"},
		{"/", "root"},
		{"", "root"},
		{"café_v1.2", "café_v1.2"},
		{"trailing!!", "trailing"},
		{"nul\x00byte", "nul-byte"},
		{strings.Repeat("x", 100), strings.Repeat("x", maxNameRunes)},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyShape(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My App")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	key := Key(dir)
	if !regexp.MustCompile(`^My-App-[0-9a-f]{8}$`).MatchString(key) {
		t.Fatalf("Key = %q, want My-App-<8 hex>", key)
	}
}

// The same folder reached by a relative path, a trailing slash or a symlink
// must get one key; a different folder with the same name another.
func TestKeyIdentity(t *testing.T) {
	base := t.TempDir()
	a := filepath.Join(base, "one", "app")
	b := filepath.Join(base, "two", "app")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(base, "one"))

	same := []string{a, a + "/", filepath.Join(a, "..", "app"), link, "app", "./app/"}
	for _, p := range same {
		if got, want := Key(p), Key(a); got != want {
			t.Errorf("Key(%q) = %q, want %q (same folder)", p, got, want)
		}
	}
	if Key(a) == Key(b) {
		t.Errorf("two folders named app share the key %q", Key(a))
	}
}

func TestDirsFollowEnvironment(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	state, config, data := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_DATA_HOME", data)

	if got, want := StateDir(root), filepath.Join(state, "tether", "projects", Key(root)); got != want {
		t.Errorf("StateDir = %q, want %q", got, want)
	}
	if got, want := ConfigDir(root), filepath.Join(config, "tether", "projects", Key(root)); got != want {
		t.Errorf("ConfigDir = %q, want %q", got, want)
	}
	if got, want := DataDir(root), filepath.Join(data, "tether", "projects", Key(root)); got != want {
		t.Errorf("DataDir = %q, want %q", got, want)
	}
}

// A relative XDG value is invalid by the specification and must not put
// state under whatever the working directory happens to be.
func TestRelativeEnvironmentIgnored(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "relative/state")
	t.Setenv("XDG_CONFIG_HOME", "relative/config")
	t.Setenv("XDG_DATA_HOME", "relative/data")
	for name, dir := range map[string]string{"StateDir": StateDir(root), "ConfigDir": ConfigDir(root), "DataDir": DataDir(root)} {
		if !filepath.IsAbs(dir) || strings.Contains(dir, "relative") {
			t.Errorf("%s = %q, want an absolute path outside the relative value", name, dir)
		}
	}
}
