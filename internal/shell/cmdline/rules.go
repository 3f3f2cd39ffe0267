package cmdline

import (
	"strings"
)

// A rule accepts a read-only program's arguments (argv[0] is the program)
// or says why not. Paths are checked separately.
type rule func(argv []string) string

// readOnlyRules are the programs that run without asking, anywhere.
var readOnlyRules = map[string]rule{
	"ls":   anyArgs,
	"cat":  anyArgs,
	"head": anyArgs,
	"wc":   anyArgs,
	"pwd":  anyArgs,
	"echo": anyArgs,
	"tail": func(argv []string) string {
		// Following a file never ends; it would only run into the timeout.
		if hasShort(argv, "fF") || hasLong(argv, "--follow", "--retry") {
			return "tail -f never ends; use a background job to follow a file"
		}
		return ""
	},
	"grep": func(argv []string) string {
		// -R follows symbolic links, which can lead outside the workspace.
		if hasShort(argv, "R") || hasLong(argv, "--dereference-recursive") {
			return "grep -R follows symbolic links out of the workspace; use -r"
		}
		return ""
	},
	"rg": func(argv []string) string {
		// --pre and --hostname-bin run a program of the caller's choosing;
		// -L follows symbolic links out of the workspace.
		if hasLong(argv, "--pre", "--pre-glob", "--hostname-bin", "--follow") || hasShort(argv, "L") {
			return "rg with --pre, --hostname-bin or --follow can run programs or read outside the workspace"
		}
		return ""
	},
	"find": func(argv []string) string {
		for _, a := range argv[1:] {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return "find " + a + " runs a program"
			case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
				return "find " + a + " changes files"
			case "-L", "-follow":
				return "find " + a + " follows symbolic links out of the workspace"
			}
		}
		return ""
	},
	"git": func(argv []string) string {
		if len(argv) < 2 {
			return "git without a subcommand is not on the list"
		}
		switch argv[1] {
		case "status", "diff", "log", "show":
		default:
			return "git " + argv[1] + " is not one of the read-only forms (status, diff, log, show)"
		}
		for _, a := range argv[2:] {
			// --output writes a file; --ext-diff and --textconv run helpers
			// the repository names; --no-index compares any files on disk;
			// signatures run the configured verifier.
			if hasPrefixAny(a, "--output", "--ext-diff", "--textconv", "--no-index", "--show-signature") || strings.Contains(a, "%G") {
				return "git " + argv[1] + " " + a + " can write files or run helpers"
			}
		}
		return ""
	},
}

// noPaths are programs whose arguments name no file.
var noPaths = map[string]bool{"echo": true, "pwd": true}

// notTestRun is what a test runner's rule says of a form that runs no tests.
const notTestRun = "not a test run"

// testRunners run the project's tests. They execute the repository's own
// code, so they run without asking only in a trusted project.
var testRunners = map[string]rule{
	"go": func(argv []string) string {
		if len(argv) < 2 || argv[1] != "test" {
			return notTestRun
		}
		// -exec and -toolexec run a program of the caller's choosing.
		for _, a := range argv[2:] {
			if strings.HasPrefix(a, "-") && hasPrefixAny(strings.TrimLeft(a, "-"), "exec", "toolexec") {
				return "go test " + a + " runs another program"
			}
		}
		return ""
	},
	"cargo": func(argv []string) string {
		if len(argv) < 2 || argv[1] != "test" {
			return notTestRun
		}
		if hasLong(argv, "--config") || hasShort(argv, "Z") {
			return "cargo test with --config or -Z can change what runs"
		}
		return ""
	},
	"npm":  scriptTest,
	"pnpm": scriptTest,
	"yarn": scriptTest,
	"pytest": func([]string) string {
		return ""
	},
	"python":  pythonModuleTest,
	"python3": pythonModuleTest,
	"uv": func(argv []string) string {
		if len(argv) < 3 || argv[1] != "run" || argv[2] != "pytest" {
			return notTestRun
		}
		return ""
	},
	"make": func(argv []string) string {
		if len(argv) < 2 || argv[1] != "test" {
			return notTestRun
		}
		if hasLong(argv, "--eval", "--file", "--makefile") || hasShort(argv, "fE") {
			return "make test with another makefile or --eval can run anything"
		}
		return ""
	},
}

func scriptTest(argv []string) string {
	if len(argv) >= 2 && argv[1] == "test" || len(argv) >= 3 && argv[1] == "run" && argv[2] == "test" {
		if hasLong(argv, "--script-shell") {
			return argv[0] + " --script-shell runs another program"
		}
		return ""
	}
	return notTestRun
}

func pythonModuleTest(argv []string) string {
	if len(argv) >= 3 && argv[1] == "-m" && argv[2] == "pytest" {
		return ""
	}
	return notTestRun
}

func anyArgs([]string) string { return "" }

// hasShort reports whether a short option cluster (-abc) holds one of
// letters. Words after "--" are operands.
func hasShort(argv []string, letters string) bool {
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], letters) {
			return true
		}
	}
	return false
}

// hasLong reports whether a long option (alone or as --opt=value) is given.
func hasLong(argv []string, names ...string) bool {
	for _, a := range argv[1:] {
		if a == "--" {
			return false
		}
		opt, _, _ := strings.Cut(a, "=")
		for _, n := range names {
			if opt == n {
				return true
			}
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
