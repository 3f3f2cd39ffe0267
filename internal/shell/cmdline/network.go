package cmdline

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fetchers are programs that read from the network whatever they are
// asked to do.
var fetchers = map[string]bool{
	"curl": true, "wget": true, "aria2c": true, "http": true, "https": true, "xh": true,
	"lynx": true, "w3m": true, "links": true, "elinks": true,
	"ssh": true, "scp": true, "sftp": true, "ftp": true, "telnet": true, "nc": true, "ncat": true, "netcat": true, "socat": true,
	"gh": true, "glab": true, "hub": true, "npx": true, "bunx": true, "pnpx": true,
	"yt-dlp": true, "youtube-dl": true,
}

// fetching lists, per program, the subcommands that reach the network,
// to read from it or to send to it (an empty name stands for the program
// run with no subcommand).
var fetching = map[string]map[string]bool{
	"git":      set("clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote", "archive", "send-email", "request-pull"),
	"npm":      set("install", "i", "ci", "add", "update", "upgrade", "exec", "x", "view", "info", "audit", "outdated", "create", "init", "publish", "unpublish", "login", "adduser", "deprecate", "dist-tag", "owner", "token"),
	"pnpm":     set("install", "i", "add", "update", "up", "dlx", "create", "fetch", "outdated", "audit"),
	"yarn":     set("", "install", "add", "upgrade", "up", "dlx", "create", "info", "npm", "outdated", "audit"),
	"bun":      set("install", "i", "add", "update", "x", "create"),
	"pip":      set("install", "download", "index", "search"),
	"pip3":     set("install", "download", "index", "search"),
	"uv":       set("pip", "add", "sync", "lock", "run", "tool", "python"),
	"poetry":   set("add", "install", "update", "lock"),
	"go":       set("get", "install", "mod"),
	"cargo":    set("install", "fetch", "add", "update", "search", "publish", "login", "yank", "owner"),
	"gem":      set("install", "fetch", "update", "search", "push"),
	"bundle":   set("install", "update"),
	"composer": set("install", "require", "update", "create-project"),
	"apt":      set("install", "update", "upgrade", "download", "source"),
	"apt-get":  set("install", "update", "upgrade", "download", "source"),
	"brew":     set("install", "update", "upgrade", "fetch", "info"),
	"docker":   set("pull", "run", "build", "login", "search", "push"),
	"podman":   set("pull", "run", "build", "login", "search", "push"),
	"twine":    set("upload", "register"),
	"svn":      set("checkout", "co", "update", "up", "export", "cat", "log"),
	"hg":       set("clone", "pull", "incoming"),
	"rsync":    nil, // reaches the network when an argument names a host
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// networkUse says how a program run with args reaches the network
// ("curl", "git fetch"), or "" when it evidently does not. Only what the
// command line shows is judged: a script that fetches is not seen.
func networkUse(name string, args []*syntax.Word) string {
	base := filepath.Base(name)
	if fetchers[base] {
		return base
	}
	subs, ok := fetching[base]
	if !ok {
		return ""
	}
	var words []string
	for _, w := range args {
		if v, ok := staticWord(w); ok {
			words = append(words, v)
		} else {
			words = append(words, "$?")
		}
	}
	if base == "rsync" {
		for _, w := range words {
			if !strings.HasPrefix(w, "-") && strings.Contains(w, ":") {
				return "rsync"
			}
		}
		return ""
	}
	sub := ""
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "$?" {
			return base // a subcommand known only when it runs
		}
		if len(w) > 0 && w[0] == '-' {
			if base == "git" && (w == "-C" || w == "-c") {
				i++ // these take a value
			}
			continue
		}
		sub = w
		break
	}
	if subs[sub] {
		if sub == "" {
			return base
		}
		return base + " " + sub
	}
	return ""
}

// network records that the command reads from the network.
func (f *finder) network(what string) {
	for _, x := range f.a.Network {
		if x == what {
			return
		}
	}
	f.a.Network = append(f.a.Network, what)
}
