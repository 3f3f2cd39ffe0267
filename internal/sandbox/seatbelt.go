package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SeatbeltExec is the sandbox-exec that runs a command under a Seatbelt
// profile on macOS, named by its absolute path so that a sandbox-exec
// earlier on PATH cannot stand in for it.
const SeatbeltExec = "/usr/bin/sandbox-exec"

// Profile is a Seatbelt profile (Apple's sandbox profile language) with
// the rules of the landlock level, and the parameters sandbox-exec gets
// with -D: every path goes as a parameter, never into the profile's text,
// so no path can change the profile's meaning.
type Profile struct {
	Text   string
	Params []string // KEY=VALUE
}

// SeatbeltProfile builds the profile of a spec:
//
//   - Deny by default. Processes may fork and exec, and signal or inspect
//     only processes of the same sandbox.
//   - Read anything, except the hidden folders (the home folders, other
//     volumes), within which the read-only and writable paths stay
//     readable. Metadata (stat) stays readable everywhere, as Landlock
//     leaves it.
//   - Write the workspace folders, the writable paths, the private
//     temporary folder and the harmless devices; never a folder's
//     .git/hooks, .git/config or .git/config.worktree, nor a .git file.
//   - No network unless allowed; then IP only (Unix sockets are network
//     operations to Seatbelt, and the Docker socket or the session's
//     services stay out of reach even with network).
//
// Later rules win over earlier ones in Seatbelt, which is what the
// exceptions rely on.
func SeatbeltProfile(s Spec) Profile {
	var b strings.Builder
	var params []string
	keys := map[string]string{}
	// param names a path as a parameter, once per path.
	param := func(path string) string {
		if k, ok := keys[path]; ok {
			return k
		}
		k := fmt.Sprintf("(param \"P%d\")", len(params))
		params = append(params, fmt.Sprintf("P%d=%s", len(params), path))
		keys[path] = k
		return k
	}
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	line("(version 1)")
	line("(deny default)")
	line("(allow process-exec process-fork)")
	line("(allow signal (target same-sandbox))")
	line("(allow process-info* (target same-sandbox))")
	line("(allow sysctl-read)")
	line("(allow ipc-posix-sem ipc-posix-shm*)")
	line("(allow pseudo-tty)")
	line(`(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger") (global-name "com.apple.system.notification_center"))`)

	line(";; Reading: everything but the hidden folders.")
	line("(allow file-read* file-test-existence)")
	for _, h := range s.Hidden {
		line("(deny file-read* (subpath %s))", param(h))
	}
	line("(allow file-read-metadata)")
	var writable []string
	for _, f := range s.Folders {
		writable = append(writable, "(subpath "+param(f.Path)+")")
	}
	for _, p := range s.Writable {
		writable = append(writable, pathFilter(param(p), p))
	}
	if s.TempDir != "" {
		writable = append(writable, "(subpath "+param(s.TempDir)+")")
	}
	readable := append([]string(nil), writable...)
	for _, p := range s.ReadOnly {
		readable = append(readable, pathFilter(param(p), p))
	}
	if len(readable) > 0 {
		line("(allow file-read* %s)", strings.Join(readable, " "))
	}

	line(";; Writing: the workspace, the caches, the temporary folder, harmless devices.")
	devices := []string{`(literal "/dev/null")`, `(literal "/dev/zero")`, `(literal "/dev/tty")`, `(regex #"^/dev/ttys[0-9]+$")`, `(literal "/dev/ptmx")`}
	line("(allow file-write* %s)", strings.Join(append(writable, devices...), " "))
	// What decides what git runs later, outside the sandbox, stays as
	// it is: an existing git folder's hooks and configuration, and a .git
	// file (which says where git writes).
	var protected []string
	for _, f := range s.Folders {
		dotGit := filepath.Join(f.Path, ".git")
		switch {
		case isDir(dotGit):
			protected = append(protected,
				"(subpath "+param(filepath.Join(dotGit, "hooks"))+")",
				"(literal "+param(filepath.Join(dotGit, "config"))+")",
				"(literal "+param(filepath.Join(dotGit, "config.worktree"))+")")
		case exists(dotGit):
			protected = append(protected, "(literal "+param(dotGit)+")")
		}
	}
	if len(protected) > 0 {
		line("(deny file-write* %s)", strings.Join(protected, " "))
	}
	line(`(allow file-ioctl (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))`)

	line(";; Network: IP only, and only when allowed.")
	if s.Network {
		line(`(allow network-outbound (remote ip "*:*"))`)
		line(`(allow network-inbound (local ip "*:*"))`)
		line(`(allow network-bind (local ip "*:*"))`)
		line("(allow system-socket)")
		line(`(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.trustd.agent") (global-name "com.apple.SystemConfiguration.configd") (global-name "com.apple.SystemConfiguration.DNSConfiguration"))`)
	}
	line("(deny network* (remote unix-socket))")
	return Profile{Text: b.String(), Params: params}
}

// pathFilter matches a path: a folder and what is beneath it, or one file.
func pathFilter(key, path string) string {
	if isDir(path) {
		return "(subpath " + key + ")"
	}
	return "(literal " + key + ")"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
