package cmdline

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Invocation is one program a command line runs, with its subcommand
// where the program has subcommands: what an "always" answer is scoped to
// ("git status", "npm test", "go build"; "ls" for a program without).
type Invocation struct {
	// Program is named as written, as in Analysis.Programs.
	Program string
	// Subcommand is the program's first argument, for a program that has
	// subcommands, when that argument is a plain word.
	Subcommand string
	// Unscoped is set for a program with subcommands whose subcommand
	// cannot be told: no argument, an option first (git -c … status: the
	// option could change what the subcommand does), or an expansion.
	// Only a rule for the whole program can cover it.
	Unscoped bool
}

// String names the invocation as a person would: "git status", "ls";
// the program alone when its subcommand cannot be told.
func (v Invocation) String() string {
	if v.Subcommand != "" {
		return v.Program + " " + v.Subcommand
	}
	return v.Program
}

// HasSubcommands reports whether the program named is one whose first
// argument says what it does, so that an "always" is saved per
// subcommand: version control, package managers and build tools, cloud
// and container command lines.
func HasSubcommands(program string) bool {
	return subcommandPrograms[filepath.Base(program)]
}

var subcommandPrograms = set(
	"git", "hg", "svn", "gh", "glab",
	"npm", "pnpm", "yarn", "bun", "deno", "npx", "pnpx", "bunx",
	"go", "cargo", "rustup", "dotnet", "swift", "mix", "stack", "cabal",
	"pip", "pip3", "uv", "poetry", "pipx", "conda", "gem", "bundle", "composer",
	"docker", "podman", "kubectl", "helm", "terraform", "tofu", "nix",
	"apt", "apt-get", "brew", "systemctl", "aws", "gcloud", "az",
)

// invocation reads how a program is run from its arguments.
func invocation(name string, args []*syntax.Word) Invocation {
	v := Invocation{Program: name}
	if !HasSubcommands(name) {
		return v
	}
	if len(args) == 0 {
		v.Unscoped = true
		return v
	}
	first, ok := staticWord(args[0])
	if base := filepath.Base(name); ok && (base == "cargo" || base == "rustup") && strings.HasPrefix(first, "+") && len(args) > 1 {
		// cargo +nightly build: the toolchain, then the subcommand.
		first, ok = staticWord(args[1])
	}
	if !ok || expands(args[0]) != "" || first == "" || strings.HasPrefix(first, "-") || strings.ContainsAny(first, "=/ \t\n") {
		v.Unscoped = true
		return v
	}
	v.Subcommand = first
	return v
}

// addInvocation records an invocation once.
func (f *finder) addInvocation(v Invocation) {
	for _, x := range f.a.Invocations {
		if x == v {
			return
		}
	}
	f.a.Invocations = append(f.a.Invocations, v)
}
