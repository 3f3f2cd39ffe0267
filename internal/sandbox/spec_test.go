package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChooseFollowsTheSetting(t *testing.T) {
	full := Status{Level: LevelFull, LandlockABI: 7}
	for _, tt := range []struct {
		setting string
		st      Status
		want    Level
	}{
		{"", full, LevelFull},
		{SettingAuto, full, LevelFull},
		{SettingLandlock, full, LevelLandlock},
		{SettingOff, full, LevelNone},
		{SettingLandlock, Status{Level: LevelFull, LandlockABI: 1}, LevelNone},
		{SettingAuto, Status{Level: LevelLandlock, LandlockABI: 3}, LevelLandlock},
		{SettingLandlock, Status{Level: LevelLandlock, LandlockABI: 3}, LevelLandlock},
		{SettingAuto, Status{Level: LevelNone}, LevelNone},
		{SettingLandlock, Status{Level: LevelSeatbelt}, LevelSeatbelt},
		{SettingOff, Status{Level: LevelSeatbelt}, LevelNone},
	} {
		if got := Choose(tt.setting, tt.st); got != tt.want {
			t.Errorf("Choose(%q, %+v) = %s, want %s", tt.setting, tt.st, got, tt.want)
		}
	}
}

func TestCheckSettingsNamesTheSetting(t *testing.T) {
	if err := CheckSettings("sometimes", nil); err == nil || !strings.Contains(err.Error(), "shellSandbox") {
		t.Errorf("a bad mode: %v", err)
	}
	if err := CheckSettings("", []string{"relative/dir"}); err == nil || !strings.Contains(err.Error(), "shellWritablePaths") {
		t.Errorf("a relative path: %v", err)
	}
	if err := CheckSettings("landlock", []string{"/abs"}); err != nil {
		t.Errorf("good settings: %v", err)
	}
}

// Tether's own folders are never writable, whatever the settings say;
// a writable path that does not exist is left out.
func TestBuildKeepsTethersFoldersReadOnly(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws, state, cache := filepath.Join(root, "ws"), filepath.Join(root, "state"), filepath.Join(root, "cache")
	for _, d := range []string{ws, filepath.Join(state, "tether"), cache} {
		os.MkdirAll(d, 0o755)
	}
	l := Layout{Protected: []string{filepath.Join(state, "tether")}}
	s, err := Build(Options{Level: LevelFull, Folders: []Folder{{Path: ws}}, Writable: []string{state, filepath.Join(state, "tether", "undo"), cache, filepath.Join(root, "missing")}}, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Writable) != 1 || s.Writable[0] != cache {
		t.Errorf("writable = %q, want only %s", s.Writable, cache)
	}
	for _, bad := range []Options{
		{Level: LevelFull, Folders: []Folder{{Path: "relative"}}},
		{Level: LevelFull, Folders: []Folder{{Path: "/"}}},
		{Level: LevelFull},
		{Level: LevelLandlock, Folders: []Folder{{Path: ws, Upper: cache, Work: state}}},
		{Level: LevelFull, Folders: []Folder{{Path: ws, Upper: cache}}},
	} {
		if _, err := Build(bad, l); err == nil {
			t.Errorf("Build(%+v) accepted a bad spec", bad)
		}
	}
}

// The layout hides the homes and the runtime folder, shows the toolchain
// read-only, never a secret, and lets the caches be written.
func TestLayoutOfAHome(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	for _, p := range []string{".ssh", ".aws", ".config/gh", ".docker", ".config/git", ".cargo/bin", ".rustup", "go/bin"} {
		os.MkdirAll(filepath.Join(home, p), 0o755)
	}
	for _, f := range []string{".gitconfig", ".netrc", ".npmrc", ".ssh/id_ed25519"} {
		os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600)
	}
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("//registry.example/:_authToken=SECRET\ncache = ~/npm-cache\n"), 0o600)
	runtimeDir := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_RUNTIME_DIR": runtimeDir, "XDG_CACHE_HOME": filepath.Join(home, ".cache"), "GOCACHE": filepath.Join(home, ".cache", "go-build"), "GOMODCACHE": filepath.Join(home, "go", "pkg", "mod")}
	has := map[string]bool{"go": true, "npm": true, "cargo": true}
	l := findLayout(func(k string) string { return env[k] }, func(p string) (string, error) {
		if has[p] {
			return "/usr/bin/" + p, nil
		}
		return "", os.ErrNotExist
	})
	real, _ := filepath.EvalSymlinks(runtimeDir)
	for _, want := range []string{home, real} {
		if !contains(l.Hidden, want) {
			t.Errorf("%s is not hidden: %q", want, l.Hidden)
		}
	}
	for _, want := range []string{".gitconfig", ".config/git", ".cargo/bin", ".rustup", "go"} {
		if !contains(l.ReadOnly, filepath.Join(home, want)) {
			t.Errorf("~/%s is not shown read-only: %q", want, l.ReadOnly)
		}
	}
	for _, secret := range []string{".ssh", ".aws", ".netrc", ".npmrc", ".config/gh", ".docker"} {
		for _, p := range append(append([]string(nil), l.ReadOnly...), l.Writable...) {
			if within(filepath.Join(home, secret), p) && p != home {
				t.Errorf("~/%s is shown through %s", secret, p)
			}
		}
	}
	// The caches of the tools on PATH are made when a command first runs
	// (not before: finding the layout changes nothing), then writable.
	caches := []string{".cache/go-build", "go/pkg/mod", "npm-cache", ".cargo/registry", ".cargo/git"}
	for _, want := range caches {
		if !contains(l.Creatable, filepath.Join(home, want)) {
			t.Errorf("~/%s is not to be made for the tool that uses it: %q", want, l.Creatable)
		}
		if _, err := os.Stat(filepath.Join(home, want)); err == nil {
			t.Errorf("finding the layout made ~/%s", want)
		}
	}
	ws := t.TempDir()
	s, err := Build(Options{Level: LevelFull, Folders: []Folder{{Path: ws}}}, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range caches {
		if !contains(s.Writable, filepath.Join(home, want)) {
			t.Errorf("~/%s is not writable once a command runs: %q", want, s.Writable)
		}
	}
}

// Go's caches are where the go command would put them: its environment
// file counts, as go env -w writes it.
func TestGoCachesFollowGosEnvironmentFile(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "go"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "go", "env"), []byte("GOMODCACHE=/srv/mods\nGOPATH=/srv/gopath\n"), 0o644)
	env := map[string]string{"HOME": home}
	cache, mod, file := goPaths(func(k string) string { return env[k] }, filepath.Join(home, ".cache"), func(rel string) string { return filepath.Join(home, rel) })
	if cache != filepath.Join(home, ".cache", "go-build") || mod != "/srv/mods" || file != filepath.Join(home, ".config", "go", "env") {
		t.Errorf("goPaths = %q, %q, %q", cache, mod, file)
	}
	env["GOMODCACHE"], env["GOCACHE"] = "/opt/m", "off"
	if cache, mod, _ := goPaths(func(k string) string { return env[k] }, "", func(rel string) string { return filepath.Join(home, rel) }); cache != "" || mod != "/opt/m" {
		t.Errorf("with the environment set: %q, %q", cache, mod)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestHintsNameWhatTheSandboxKept(t *testing.T) {
	s := Spec{Level: LevelFull, Home: "/home/u"}
	for _, tt := range []struct {
		out, want string
	}{
		{"curl: (6) Could not resolve host: example.com", "network: true"},
		{"npm ERR! getaddrinfo EAI_AGAIN registry.npmjs.org", "network: true"},
		{"Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", "Docker"},
		{"touch: cannot touch '/etc/x': Read-only file system", "shellWritablePaths"},
		{"Failed to connect to bus: No such file or directory", "D-Bus"},
		{"cat: /home/u/.aws/credentials: No such file or directory", "home folder"},
	} {
		hints := Hints(tt.out, s)
		if len(hints) == 0 || !strings.Contains(strings.Join(hints, " "), tt.want) {
			t.Errorf("Hints(%q) = %q, want one naming %q", tt.out, hints, tt.want)
		}
	}
	if h := Hints("FAIL: TestX (0.01s)\nexpected 3, got 4", s); len(h) != 0 {
		t.Errorf("an ordinary failure got hints: %q", h)
	}
	s.Network = true
	if h := Hints("curl: (6) Could not resolve host: example.com", s); len(h) != 0 {
		t.Errorf("a command with network got the no-network hint: %q", h)
	}
}
