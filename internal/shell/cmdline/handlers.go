package cmdline

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// implicit are shell builtins that run no other program and change nothing
// outside the shell itself. They are left out of the programs so that
// "always allow go" covers `cd sub && go test` too.
var implicit = map[string]bool{
	"cd": true, "pwd": true, "echo": true, "true": true, "false": true, ":": true,
	"test": true, "[": true, "shift": true, "set": true, "wait": true, "exit": true,
	"return": true, "break": true, "continue": true, "type": true, "umask": true,
	"pushd": true, "popd": true, "dirs": true, "times": true, "caller": true,
	"shopt": true, "ulimit": true, "help": true, "jobs": true, "fg": true, "bg": true,
	"unset": true, "getopts": true, "local": true, "declare": true, "typeset": true,
	"readonly": true, "export": true, "let": true, "logout": true,
}

// systemDirs are where a program named by an absolute path is taken to be
// the standard one of its name (/usr/bin/env is env). Elsewhere a path is
// just a program of its own, listed as written.
var systemDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
}

// handler examines a command whose program has special meaning: a wrapper
// that runs another command, a shell, a builtin that runs a string.
type handler func(s *scope, name string, args []*syntax.Word)

var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"env":     (*scope).env,
		"command": (*scope).commandBuiltin,
		"builtin": func(s *scope, _ string, args []*syntax.Word) { s.rest(args) },
		"exec":    wrapper(opts{flags: "cl", withArg: "a"}),
		"nice":    wrapper(opts{withArg: "n", long: map[string]bool{"adjustment": true}, numeric: true}),
		"nohup":   detaching(wrapper(opts{})),
		"setsid":  detaching(wrapper(opts{flags: "cfw", long: map[string]bool{"ctty": false, "fork": false, "wait": false}})),
		"stdbuf":  wrapper(opts{withArg: "ioe", long: map[string]bool{"input": true, "output": true, "error": true}}),
		"time": wrapper(opts{flags: "pvqa", withArg: "fo", long: map[string]bool{
			"portability": false, "verbose": false, "quiet": false, "append": false, "format": true, "output": true}}),
		"timeout": wrapper(opts{flags: "v", withArg: "sk", positionals: 1, long: map[string]bool{
			"preserve-status": false, "foreground": false, "verbose": false, "signal": true, "kill-after": true}}),
		"ionice": (*scope).ionice,
		"xargs":  (*scope).xargs,
		"sudo":   (*scope).sudo,
		"doas":   (*scope).doas,
		"find":   (*scope).find,
		"eval": func(s *scope, _ string, _ []*syntax.Word) {
			s.unknowable("eval runs a string as a command")
		},
		"source": func(s *scope, name string, _ []*syntax.Word) {
			s.unknowable("%s runs the commands in a file", name)
		},
		"trap":    (*scope).trap,
		"alias":   (*scope).alias,
		"hash":    refuseOption('p', "hash -p changes which program a name runs"),
		"enable":  refuseOption('f', "enable -f loads code into the shell"),
		"read":    (*scope).read,
		"mapfile": (*scope).read,
		"printf":  (*scope).printf,
		"disown": func(s *scope, _ string, _ []*syntax.Word) {
			s.a.Detaches = true
		},
	}
	handlers["."] = handlers["source"]
	handlers["readarray"] = handlers["mapfile"]
	for _, sh := range []string{"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"} {
		handlers[sh] = (*scope).shell
	}
	for _, d := range []string{"daemonize", "start-stop-daemon", "screen", "tmux", "at", "batch"} {
		handlers[d] = func(s *scope, name string, _ []*syntax.Word) {
			s.a.Detaches = true
			s.program(name)
		}
	}
}

// lookupHandler finds the special meaning of a program name, if it has one:
// bare names, and absolute paths in the system folders.
func lookupHandler(name string) (handler, bool) {
	if filepath.IsAbs(name) {
		if !systemDirs[filepath.Dir(name)] {
			return nil, false
		}
		name = filepath.Base(name)
	} else if strings.Contains(name, "/") {
		return nil, false
	}
	if h, ok := handlers[name]; ok {
		return h, true
	}
	if implicit[name] {
		return func(*scope, string, []*syntax.Word) {}, true
	}
	return nil, false
}

// opts describes a wrapper's options, enough to find where the command it
// runs begins.
type opts struct {
	flags   string // short options without a value
	withArg string // short options that take a value
	// long maps long option names to whether they take a value (given
	// as --name=value or as the next word).
	long map[string]bool
	// numeric accepts -N options (nice -10).
	numeric bool
	// positionals is how many words come before the command (timeout's
	// duration).
	positionals int
	// optional lists short options whose value, if any, is attached
	// (xargs -i[R]).
	optional string
}

// split parses a wrapper's options. It returns the short options seen and
// the words from the command on; ok is false (and the command unknowable)
// when an option is not static or not known, since then it cannot be told
// where the command starts.
func (s *scope) split(name string, args []*syntax.Word, o opts) (seen string, rest []*syntax.Word, ok bool) {
	i := 0
	for i < len(args) {
		v, static := staticWord(args[i])
		if !static {
			if i == 0 || strings.HasPrefix(source(s.src, args[i]), "-") {
				s.unknowable("the options of %s are known only when it runs", name)
				return seen, nil, false
			}
			break
		}
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		if strings.HasPrefix(v, "--") {
			opt, _, hasValue := strings.Cut(v[2:], "=")
			takes, known := o.long[opt]
			if !known {
				s.unknowable("%s has an option %s that this check does not know, so what it runs cannot be told", name, v)
				return seen, nil, false
			}
			if takes && !hasValue {
				i++
			}
			i++
			continue
		}
		if o.numeric && isDigits(v[1:]) {
			i++
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			seen += string(c)
			switch {
			case strings.IndexByte(o.flags, c) >= 0:
				continue
			case strings.IndexByte(o.optional, c) >= 0:
				j = len(v)
			case strings.IndexByte(o.withArg, c) >= 0:
				if j == len(v)-1 {
					i++
				}
				j = len(v)
			default:
				s.unknowable("%s has an option -%c that this check does not know, so what it runs cannot be told", name, c)
				return seen, nil, false
			}
		}
		i++
	}
	if i > len(args) {
		i = len(args)
	}
	for n := 0; n < o.positionals && i < len(args); n++ {
		i++
	}
	return seen, args[i:], true
}

// wrapper makes the handler of a transparent wrapper: what it runs is
// listed, the wrapper is not.
func wrapper(o opts) handler {
	return func(s *scope, name string, args []*syntax.Word) {
		if _, rest, ok := s.split(name, args, o); ok {
			s.rest(rest)
		}
	}
}

func detaching(h handler) handler {
	return func(s *scope, name string, args []*syntax.Word) {
		s.a.Detaches = true
		h(s, name, args)
	}
}

// refuseOption makes a builtin unknowable when given option c.
func refuseOption(c byte, why string) handler {
	return func(s *scope, _ string, args []*syntax.Word) {
		for _, w := range args {
			v, ok := staticWord(w)
			if !ok || (strings.HasPrefix(v, "-") && strings.IndexByte(v, c) >= 0) {
				s.unknowable("%s", why)
				return
			}
		}
	}
}

func (s *scope) env(name string, args []*syntax.Word) {
	seen, rest, ok := s.split(name, args, opts{
		flags: "i0v", withArg: "uCS",
		long: map[string]bool{"ignore-environment": false, "null": false, "debug": false, "unset": true, "chdir": true,
			"split-string": true, "block-signal": false, "default-signal": false, "ignore-signal": false, "list-signal-handling": false},
	})
	if !ok {
		return
	}
	split := strings.ContainsRune(seen, 'S')
	for _, w := range args[:len(args)-len(rest)] {
		if v, _ := staticWord(w); strings.HasPrefix(v, "--split-string") {
			split = true
		}
	}
	if split {
		s.unknowable("env -S splits a string into a command")
		return
	}
	// NAME=VALUE words come before the command.
	for len(rest) > 0 {
		v, static := staticWord(rest[0])
		if !static {
			s.unknowable("env is given %s, which could be a variable or the program", source(s.src, rest[0]))
			return
		}
		eq := strings.IndexByte(v, '=')
		if eq <= 0 {
			break
		}
		s.setVar(v[:eq])
		rest = rest[1:]
	}
	if len(rest) == 0 {
		s.program(name) // prints the environment
		return
	}
	s.rest(rest)
}

// commandBuiltin: `command -v x` only looks x up; `command x` runs the
// program x even where a function x exists.
func (s *scope) commandBuiltin(name string, args []*syntax.Word) {
	seen, rest, ok := s.split(name, args, opts{flags: "pvV"})
	if !ok || strings.ContainsAny(seen, "vV") {
		return
	}
	s.rest(rest)
}

func (s *scope) ionice(name string, args []*syntax.Word) {
	seen, rest, ok := s.split(name, args, opts{flags: "t", withArg: "cnpPu",
		long: map[string]bool{"class": true, "classdata": true, "pid": true, "pgid": true, "uid": true, "ignore": false}})
	if !ok {
		return
	}
	if strings.ContainsAny(seen, "pPu") || len(rest) == 0 {
		s.program(name) // acts on processes already running
		return
	}
	s.rest(rest)
}

func (s *scope) xargs(name string, args []*syntax.Word) {
	_, rest, ok := s.split(name, args, opts{
		flags: "0oprtx", optional: "eil", withArg: "adEILnPs",
		long: map[string]bool{"null": false, "open-tty": false, "interactive": false, "no-run-if-empty": false,
			"verbose": false, "exit": false, "show-limits": false, "arg-file": true, "delimiter": true,
			"max-lines": false, "max-args": true, "max-procs": true, "max-chars": true, "process-slot-var": true,
			"replace": false, "eof": false},
	})
	if ok {
		s.rest(rest) // no command: xargs runs echo
	}
}

// sudo and doas are listed themselves (they change who runs the command),
// and what they run is listed too.
func (s *scope) sudo(name string, args []*syntax.Word) {
	s.program(name)
	seen, rest, ok := s.split(name, args, opts{
		flags: "AbBEeHiKklNnPSsVv", withArg: "CDghpRrTtUu",
		long: map[string]bool{"user": true, "group": true, "host": true, "prompt": true, "chroot": true, "chdir": true,
			"role": true, "type": true, "close-from": true, "other-user": true, "command-timeout": true,
			"askpass": false, "background": false, "bell": false, "preserve-env": false, "edit": false,
			"set-home": false, "login": false, "remove-timestamp": false, "reset-timestamp": false, "list": false,
			"non-interactive": false, "preserve-groups": false, "stdin": false, "shell": false, "validate": false},
	})
	if !ok || strings.ContainsRune(seen, 'e') {
		return
	}
	if len(rest) == 0 && strings.ContainsAny(seen, "si") {
		s.unknowable("%s opens a shell whose commands are not in the command line", name)
		return
	}
	s.rest(rest)
}

func (s *scope) doas(name string, args []*syntax.Word) {
	s.program(name)
	seen, rest, ok := s.split(name, args, opts{flags: "nsL", withArg: "uC"})
	if !ok {
		return
	}
	if len(rest) == 0 && strings.ContainsRune(seen, 's') {
		s.unknowable("%s opens a shell whose commands are not in the command line", name)
		return
	}
	s.rest(rest)
}

// find runs the commands of its -exec, -execdir, -ok and -okdir actions.
func (s *scope) find(name string, args []*syntax.Word) {
	s.program(name)
	for i := 0; i < len(args); i++ {
		v, _ := staticWord(args[i])
		if v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) {
			if t, _ := staticWord(args[j]); t == ";" || t == "+" {
				break
			}
			j++
		}
		s.rest(args[i+1 : j])
		i = j
	}
}

// shell handles bash, sh and friends: `-c script` runs a literal script,
// which is analysed in turn; a file argument runs a script file, and the
// shell is listed; neither means it reads commands from its input.
func (s *scope) shell(name string, args []*syntax.Word) {
	script, reads := false, false
	i := 0
	for ; i < len(args); i++ {
		v, static := staticWord(args[i])
		if !static {
			if script {
				break
			}
			s.unknowable("%s is given %s, known only when it runs", name, source(s.src, args[i]))
			return
		}
		if v == "--" || v == "-" {
			i++
			break
		}
		if v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file" {
			i++
			continue
		}
		if strings.HasPrefix(v, "--") {
			continue
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		script = script || strings.ContainsRune(v[1:], 'c')
		reads = reads || strings.ContainsAny(v[1:], "si")
	}
	switch {
	case script && i < len(args):
		s.nested(name+" -c", args[i])
	case script:
		// bash -c with no script is an error; nothing runs.
	case reads || i >= len(args):
		s.unknowable("%s reads the commands it runs from its input", name)
	default:
		s.program(name)
	}
}

// trap runs its first argument as a command when a signal comes.
func (s *scope) trap(name string, args []*syntax.Word) {
	seen, rest, ok := s.split(name, args, opts{flags: "lpP"})
	if !ok || seen != "" || len(rest) == 0 {
		return
	}
	if len(rest) == 1 {
		if v, ok := staticWord(rest[0]); ok && isSignal(v) {
			return // resets the signal
		}
	}
	if v, ok := staticWord(rest[0]); ok && (v == "" || v == "-") {
		return
	}
	s.nested(name, rest[0])
}

func (s *scope) alias(_ string, args []*syntax.Word) {
	for _, w := range args {
		if v, ok := staticWord(w); !ok || strings.Contains(v, "=") {
			s.unknowable("alias changes what a name runs")
			return
		}
	}
}

// read and mapfile set variables from input the command line does not show.
func (s *scope) read(name string, args []*syntax.Word) {
	s.runtime(name)
	for _, w := range args {
		if v, ok := staticWord(w); ok && !strings.HasPrefix(v, "-") {
			s.setVar(v)
		}
	}
}

// printf -v sets a variable from a format.
func (s *scope) printf(_ string, args []*syntax.Word) {
	if len(args) >= 2 {
		if v, _ := staticWord(args[0]); v == "-v" {
			s.runtime("printf -v")
			if target, ok := staticWord(args[1]); ok {
				s.setVar(target)
			} else {
				s.unknowable("printf -v sets a variable named only when it runs")
			}
		}
	}
}

func isSignal(v string) bool {
	if isDigits(v) {
		return true
	}
	v = strings.TrimPrefix(strings.ToUpper(v), "SIG")
	switch v {
	case "EXIT", "ERR", "DEBUG", "RETURN", "HUP", "INT", "QUIT", "TERM", "KILL", "USR1", "USR2", "PIPE", "ALRM", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "WINCH":
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
