package sandbox

import (
	"strings"
)

// A hint explains a failed command's output by what the sandbox keeps
// from commands, so that the model can ask for it (network: true,
// sandbox: false, a writable path) instead of guessing. Each is said only
// when the output shows its signs, and says "seems": a failure with the
// same words can have another cause.
type hint struct {
	// signs are texts (compared ignoring case) of which one must appear.
	signs []string
	// applies says whether the hint can hold for this spec.
	applies func(s Spec) bool
	text    string
}

var hints = []hint{
	{
		signs: []string{
			"could not resolve host", "temporary failure in name resolution", "name or service not known",
			"no such host", "getaddrinfo", "eai_again", "enotfound", "network is unreachable", "enetunreach",
			"nodename nor servname", "failed to establish a new connection", "could not resolve", "dial tcp",
			"dial udp", "unable to access 'http", "connection refused", "econnrefused", "failed to connect to",
		},
		applies: func(s Spec) bool { return !s.Network },
		text: "the command seems to have needed the network, which a sandboxed command does not have unless the call asks for it (only its own loopback, not the host's). " +
			"If it must reach the network, run it again with network: true (the user is asked)",
	},
	{
		signs:   []string{"cannot connect to the docker daemon", "docker.sock", "podman.sock", "containerd.sock", "is the docker daemon running"},
		applies: func(Spec) bool { return true },
		text:    "the command seems to need Docker (or another container engine), whose socket the sandbox hides. If it must, run it with sandbox: false (the user is asked every time)",
	},
	{
		signs:   []string{"failed to connect to bus", "dbus_session_bus_address", "org.freedesktop.", "system has not been booted with systemd", "ssh_auth_sock", "could not open a connection to your authentication agent"},
		applies: func(Spec) bool { return true },
		text:    "the command seems to need a service of the user's session or of the system (D-Bus, systemd, the ssh agent), which the sandbox hides. If it must, run it with sandbox: false (the user is asked every time)",
	},
	{
		signs:   []string{"could not lock config file", ".git/hooks"},
		applies: func(Spec) bool { return true },
		text:    "git's configuration (.git/config) and hooks are read-only in the sandbox, since git runs them later outside it: ask the user to make that change",
	},
	{
		signs:   []string{"read-only file system", "erofs"},
		applies: func(Spec) bool { return true },
		text: "the command seems to have written outside what a sandboxed command may write: the workspace folders, /tmp and the build caches. " +
			"If it must write elsewhere, the user can add the folder to shellWritablePaths, or it can run with sandbox: false (the user is asked every time)",
	},
	{
		signs:   []string{"permission denied", "operation not permitted", "eacces", "eperm"},
		applies: func(s Spec) bool { return s.Level != LevelFull },
		text: "the command seems to have been refused something: at this sandbox level writes outside the workspace, /tmp and the build caches are refused, and so are reads of the home folder and, without network, TCP connections. " +
			"If that is the cause, ask for network: true, or run it with sandbox: false (the user is asked every time)",
	},
}

// Hints explains a failed command's output by what the sandbox of spec
// keeps from it; none when the output shows no sign of that.
func Hints(output string, s Spec) []string {
	lower := strings.ToLower(output)
	var out []string
	for _, h := range hints {
		if !h.applies(s) {
			continue
		}
		for _, sign := range h.signs {
			if strings.Contains(lower, sign) {
				out = append(out, h.text)
				break
			}
		}
	}
	if s.Home != "" && strings.Contains(output, s.Home+"/") && strings.Contains(lower, "no such file or directory") {
		out = append(out, "the command seems to have looked for a file in the home folder ("+s.Home+"), which the sandbox shows empty but for the toolchain and the build caches (never ~/.ssh, ~/.aws, ~/.netrc, ~/.npmrc). If it must read it, run it with sandbox: false (the user is asked every time)")
	}
	return out
}
