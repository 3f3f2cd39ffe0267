package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/project"
)

// Layout is what a sandbox needs to know about this machine's folders:
// which hold the user's own files (hidden), which of those the toolchain
// needs to read, and which caches builds write.
type Layout struct {
	Home string
	// Hidden are folders a command does not see: every home, /run and
	// the user's runtime folder (where the session bus, the Docker and
	// the ssh-agent sockets are), /mnt and /media.
	Hidden []string
	// ReadOnly are the toolchain and identity files inside hidden folders
	// that stay visible: git's configuration, Go, Rust, Node and Python
	// version managers. Never ~/.ssh, ~/.aws, ~/.netrc, ~/.npmrc,
	// ~/.config/gh, ~/.docker, ~/.gnupg.
	ReadOnly []string
	// Writable are the caches builds write (Go's build and module caches,
	// npm's, cargo's registry, pip's, ~/.local for pip install --user).
	Writable []string
	// Creatable are caches that do not exist yet but that a tool on PATH
	// would create on first use: they are made (empty, owner-only) when a
	// command first runs, since the command could not make them inside the
	// read-only home folder.
	Creatable []string
	// Protected are Tether's own folders (undo, permissions, memory, job
	// logs): never writable from a command, whatever the settings say.
	Protected []string
}

var (
	layoutOnce sync.Once
	layout     Layout
)

// DefaultLayout is this machine's layout, found once from the home folder,
// the XDG and tool variables of this process's environment and Go's own
// environment file: no program is run and nothing is changed.
func DefaultLayout() Layout {
	layoutOnce.Do(func() { layout = findLayout(os.Getenv, exec.LookPath) })
	return layout
}

// findLayout builds the layout from an environment and a PATH lookup.
func findLayout(getenv func(string) string, lookPath func(string) (string, error)) Layout {
	var l Layout
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if real, ok := realPath(home); ok && real != "/" {
		l.Home = real
	}
	has := func(prog string) bool { _, err := lookPath(prog); return err == nil }
	inHome := func(rel string) string {
		if l.Home == "" {
			return ""
		}
		return filepath.Join(l.Home, rel)
	}
	envOr := func(name, def string) string {
		if v := getenv(name); filepath.IsAbs(v) {
			return v
		}
		return def
	}

	// Hidden: every home, then the runtime folders.
	hidden := []string{inHome(".")}
	if runtime.GOOS == "darwin" {
		hidden = append(hidden, "/Users", "/Volumes")
	} else {
		hidden = append(hidden, "/home", "/root", "/run", "/var/run", "/mnt", "/media", getenv("XDG_RUNTIME_DIR"))
	}
	for _, h := range hidden {
		real, ok := realPath(h)
		if !ok || real == "/" {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		l.Hidden = appendUnique(l.Hidden, real)
	}
	l.Hidden = outermost(l.Hidden)

	// Writable caches; create says the tool that writes one is installed,
	// so that a missing one is made when a command runs.
	var writable []string
	want := func(p string, create bool) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if _, err := os.Lstat(p); err != nil && create {
			l.Creatable = appendUnique(l.Creatable, p)
			return
		}
		writable = append(writable, p)
	}
	cacheHome := envOr("XDG_CACHE_HOME", inHome(".cache"))
	if runtime.GOOS == "darwin" && getenv("XDG_CACHE_HOME") == "" {
		cacheHome = inHome("Library/Caches")
	}
	goCache, goModCache, goEnvFile := goPaths(getenv, cacheHome, inHome)
	want(goCache, has("go"))
	want(goModCache, has("go"))
	want(npmCache(getenv, inHome), has("npm"))
	cargoHome := envOr("CARGO_HOME", inHome(".cargo"))
	want(filepath.Join(cargoHome, "registry"), has("cargo"))
	want(filepath.Join(cargoHome, "git"), has("cargo"))
	python := has("pip") || has("pip3") || has("python3")
	want(envOr("PIP_CACHE_DIR", filepath.Join(cacheHome, "pip")), python)
	userBase := envOr("PYTHONUSERBASE", inHome(".local"))
	want(filepath.Join(userBase, "lib"), python)
	want(filepath.Join(userBase, "bin"), python)
	for _, name := range []string{"pypoetry", "uv", "yarn", "pnpm", "node-gyp", "ms-playwright", "typescript", "deno", "golangci-lint", "bazel", "pre-commit", "node", "cypress", "electron", "prisma", "turbo", "zig"} {
		want(filepath.Join(cacheHome, name), false)
	}
	for _, rel := range []string{".yarn", ".local/share/pnpm", ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".nuget/packages", ".cache/bazel", ".bun/install/cache", ".deno"} {
		want(inHome(rel), false)
	}
	l.Writable = existing(writable)

	// Read-only toolchain and identity paths.
	var ro []string
	for _, rel := range []string{
		".gitconfig", ".config/git", ".gitignore_global", ".config/go",
		"go", ".cargo/bin", ".cargo/config.toml", ".cargo/config", ".cargo/env", ".rustup",
		".nvm", ".volta", ".fnm", ".local/share/fnm", ".bun/bin", ".deno/bin", ".pyenv", ".rbenv",
		".sdkman/candidates", ".asdf", ".local/share/mise", ".local/share/uv/python", ".dotnet", ".ghcup", ".cabal/bin",
		".local/bin", ".npm-global", ".yarnrc", ".config/pip", ".config/pypoetry",
	} {
		ro = append(ro, inHome(rel))
	}
	ro = append(ro, goEnvFile, filepath.Join(cargoHome, "bin"), envOr("RUSTUP_HOME", ""), "/home/linuxbrew/.linuxbrew")
	l.ReadOnly = existing(ro)

	for _, d := range []string{project.StateHome(), project.ConfigHome(), project.DataHome()} {
		l.Protected = appendUnique(l.Protected, filepath.Join(d, "tether"))
		if real, ok := realPath(filepath.Join(d, "tether")); ok {
			l.Protected = appendUnique(l.Protected, real)
		}
	}
	// A cache that holds Tether's folders, or lies in one, is not writable.
	l.Writable = slices.DeleteFunc(l.Writable, func(p string) bool { return overlapsAny(p, l.Protected) })
	l.Creatable = slices.DeleteFunc(l.Creatable, func(p string) bool { return overlapsAny(p, l.Protected) })
	return l
}

// goPaths finds Go's build cache, module cache and environment file as
// the go command does, without running it: the environment first, then
// Go's environment file (go env -w writes it), then Go's defaults.
func goPaths(getenv func(string) string, cacheHome string, inHome func(string) string) (cache, modCache, envFile string) {
	envFile = getenv("GOENV")
	if envFile == "" {
		if dir, err := configDir(getenv, inHome); err == nil {
			envFile = filepath.Join(dir, "go", "env")
		}
	}
	file := readGoEnv(envFile)
	get := func(k string) string { return or(getenv(k), file[k]) }
	cache, modCache = get("GOCACHE"), get("GOMODCACHE")
	if cache == "" && cacheHome != "" {
		cache = filepath.Join(cacheHome, "go-build")
	}
	if modCache == "" {
		gopath := get("GOPATH")
		if i := strings.IndexByte(gopath, os.PathListSeparator); i >= 0 {
			gopath = gopath[:i]
		}
		if gopath == "" {
			gopath = inHome("go")
		}
		if gopath != "" {
			modCache = filepath.Join(gopath, "pkg", "mod")
		}
	}
	if !filepath.IsAbs(cache) {
		cache = "" // "off", or nonsense: nothing to bind
	}
	return cache, modCache, envFile
}

// configDir is os.UserConfigDir of the given environment.
func configDir(getenv func(string) string, inHome func(string) string) (string, error) {
	if runtime.GOOS == "darwin" {
		return inHome("Library/Application Support"), nil
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	if h := inHome(".config"); h != "" {
		return h, nil
	}
	return "", os.ErrNotExist
}

// readGoEnv reads Go's environment file: KEY=VALUE lines.
func readGoEnv(path string) map[string]string {
	out := map[string]string{}
	if path == "" || path == "off" {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// npmCache is npm's cache folder: npm_config_cache, else the cache line
// of ~/.npmrc (read here, since the file itself may hold registry tokens
// and is never shown to a command), else ~/.npm.
func npmCache(getenv func(string) string, inHome func(string) string) string {
	for _, name := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := getenv(name); filepath.IsAbs(v) {
			return v
		}
	}
	if rc := inHome(".npmrc"); rc != "" {
		if f, err := os.Open(rc); err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				k, v, ok := strings.Cut(sc.Text(), "=")
				if ok && strings.TrimSpace(k) == "cache" {
					v = strings.TrimSpace(v)
					if strings.HasPrefix(v, "~/") {
						v = inHome(v[2:])
					}
					if filepath.IsAbs(v) {
						return v
					}
				}
			}
		}
	}
	return inHome(".npm")
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// existing keeps the paths that exist, resolved to real paths, once each.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if real, ok := realPath(p); ok && real != "/" {
			out = appendUnique(out, real)
		}
	}
	return out
}

// outermost drops every path that lies inside another of the list.
func outermost(paths []string) []string {
	var out []string
	for i, p := range paths {
		inner := false
		for j, q := range paths {
			if i != j && p != q && within(p, q) {
				inner = true
			}
		}
		if !inner {
			out = append(out, p)
		}
	}
	return out
}
