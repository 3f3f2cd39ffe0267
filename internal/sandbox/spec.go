package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Level is how strongly a command is confined.
type Level string

const (
	// LevelFull: namespaces (user, mount, network, pid, IPC) with Landlock
	// inside; the workspace can be seen through an overlay.
	LevelFull Level = "full"
	// LevelLandlock: Landlock only, no namespaces: writes confined, the
	// home folder unreadable, TCP refused; no private /tmp, no overlay.
	LevelLandlock Level = "landlock"
	// LevelSeatbelt (macOS): sandbox-exec with a profile of the same
	// rules as the landlock level; no overlay.
	LevelSeatbelt Level = "seatbelt"
	// LevelNone: the command runs with all of the user's rights.
	LevelNone Level = "none"
)

// Confined reports whether the level confines a command at all.
func (l Level) Confined() bool { return l != LevelNone && l != "" }

// The values of the shellSandbox setting.
const (
	// SettingAuto picks the strongest level the machine passes (the default).
	SettingAuto = "auto"
	// SettingLandlock asks for Landlock only, even where full is possible.
	SettingLandlock = "landlock"
	// SettingOff runs every command unconfined.
	SettingOff = "off"
)

// Settings lists the values shellSandbox accepts, for messages.
var Settings = []string{SettingAuto, SettingLandlock, SettingOff}

// ValidSetting reports whether s is a value shellSandbox accepts ("" is
// auto).
func ValidSetting(s string) bool { return s == "" || slices.Contains(Settings, s) }

// Folder is one workspace folder as a command sees it: its own path,
// writable. With Upper and Work set (LevelFull only), the folder is seen
// through an overlay instead: reads come from the real folder, every
// write lands in Upper (Work is overlayfs's scratch folder, empty, on
// the same file system as Upper, neither inside the folder), and the real
// folder is untouched, except its .git folder, which is written through.
type Folder struct {
	Path  string `json:"path"`
	Upper string `json:"upper,omitempty"`
	Work  string `json:"work,omitempty"`
}

// Overlaid reports whether the folder is seen through an overlay.
func (f Folder) Overlaid() bool { return f.Upper != "" && f.Work != "" }

// Spec is how one command is confined. Every path is absolute and real
// (symlinks resolved), as Build makes them.
type Spec struct {
	Level   Level    `json:"level"`
	Folders []Folder `json:"folders"`
	// Writable are folders (or files) outside the workspace the command
	// may write: the build caches and shellWritablePaths.
	Writable []string `json:"writable,omitempty"`
	// ReadOnly are paths inside hidden folders that stay visible, read-only:
	// the toolchain and identity files in the home folder.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Hidden are folders replaced by an empty one (LevelFull) or left out
	// of what may be read (LevelLandlock): the homes, /run, /mnt, /media.
	Hidden []string `json:"hidden,omitempty"`
	// Network lets the command use the host's network. Without it, it
	// has a loopback of its own (LevelFull) or may not connect or bind TCP
	// (LevelLandlock).
	Network bool `json:"network,omitempty"`
	// Home is the user's home folder, which the command sees empty and
	// read-only but for the paths above.
	Home string `json:"home,omitempty"`
	// TempDir is, at LevelLandlock, the private folder TMPDIR points to
	// (the real /tmp is not readable there); at LevelFull /tmp is private.
	TempDir string `json:"tempDir,omitempty"`
	// Grace is how long the processes a command leaves behind get between
	// SIGTERM and SIGKILL when it ends.
	Grace time.Duration `json:"grace,omitempty"`
}

// Options are what a caller knows about one command.
type Options struct {
	Level   Level
	Folders []Folder
	// Writable are extra writable paths (shellWritablePaths), added to the
	// built-in cache paths.
	Writable []string
	Network  bool
	Grace    time.Duration
}

// Build makes the spec of a command from the caller's options and the
// machine's layout (DefaultLayout): real paths, the caches, the hidden
// folders. The caches a command's tools would create are made now (see
// Layout.Creatable). A writable path that holds or lies in one of
// Tether's own folders is left out (a command must never rewrite its undo
// record or its saved permissions); so is one that does not exist. A
// workspace folder that is not a real, absolute folder is an error.
func Build(o Options, l Layout) (Spec, error) {
	s := Spec{Level: o.Level, Network: o.Network, Home: l.Home, Grace: o.Grace, Hidden: l.Hidden, ReadOnly: l.ReadOnly}
	for _, f := range o.Folders {
		if !filepath.IsAbs(f.Path) || filepath.Clean(f.Path) != f.Path || f.Path == "/" {
			return Spec{}, fmt.Errorf("workspace folder %q: must be a clean absolute path other than /", f.Path)
		}
		if (f.Upper == "") != (f.Work == "") {
			return Spec{}, fmt.Errorf("workspace folder %s: an overlay needs both an upper and a work folder", f.Path)
		}
		if f.Overlaid() && o.Level != LevelFull {
			return Spec{}, fmt.Errorf("workspace folder %s: an overlay needs the full sandbox, not %s", f.Path, o.Level)
		}
		s.Folders = append(s.Folders, f)
	}
	if len(s.Folders) == 0 {
		return Spec{}, fmt.Errorf("no workspace folder to confine the command to")
	}
	for _, p := range l.Creatable {
		if o.Level.Confined() {
			_ = os.MkdirAll(p, 0o700)
		}
	}
	for _, p := range append(append(append([]string(nil), l.Writable...), l.Creatable...), o.Writable...) {
		real, ok := realPath(p)
		if !ok || real == "/" || overlapsAny(real, l.Protected) {
			continue
		}
		s.Writable = appendUnique(s.Writable, real)
	}
	// A path both shown and writable (~/.local/bin) is writable.
	s.ReadOnly = slices.DeleteFunc(slices.Clone(s.ReadOnly), func(p string) bool { return slices.Contains(s.Writable, p) })
	return s, nil
}

// realPath resolves p to an existing real absolute path.
func realPath(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	return real, true
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// overlapsAny reports whether p holds, or lies in, any of dirs.
func overlapsAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) || within(d, p) {
			return true
		}
	}
	return false
}

func appendUnique(list []string, p string) []string {
	if slices.Contains(list, p) {
		return list
	}
	return append(list, p)
}

// minLandlockABI is the oldest Landlock ABI Tether uses: ABI 1 has no
// way to let a file move between folders (refer), and in best-effort mode
// asking for it turns Landlock off altogether.
const minLandlockABI = 2

// Status is what Detect found: the strongest level this machine passes,
// and why not a stronger one.
type Status struct {
	Level Level
	// Why says what failed on the way to a stronger level, "" at full.
	Why string
	// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock.
	LandlockABI int
	// Advice says what the user can do to get the full level, "" when
	// nothing would help or it is already full.
	Advice string
}

// Choose picks the level a command runs at from the shellSandbox setting
// and what the machine passed: off is none; landlock is at most
// landlock; auto is the strongest the machine has.
//
// On macOS, where the only confinement is Seatbelt's, landlock means it.
func Choose(setting string, st Status) Level {
	switch setting {
	case SettingOff:
		return LevelNone
	case SettingLandlock:
		switch {
		case st.Level == LevelSeatbelt:
			return LevelSeatbelt
		case st.Level == LevelLandlock || st.Level == LevelFull && st.LandlockABI >= minLandlockABI:
			return LevelLandlock
		}
		return LevelNone
	}
	if st.Level == "" {
		return LevelNone
	}
	return st.Level
}

// CheckSettings checks the shellSandbox and shellWritablePaths settings,
// naming the setting at fault.
func CheckSettings(mode string, writable []string) error {
	if !ValidSetting(mode) {
		return fmt.Errorf("shellSandbox %q is not one of %s", mode, strings.Join(Settings, ", "))
	}
	for _, p := range writable {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("shellWritablePaths: %q is not an absolute path", p)
		}
	}
	return nil
}
