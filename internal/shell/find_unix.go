//go:build unix

package shell

import (
	"errors"
	"os"
	"os/exec"
)

// FindShell picks the shell commands run in: bash, which is what models
// write for, else a plain POSIX sh. The fixed paths come first so that a
// workspace that puts its own "bash" early on PATH does not get to choose.
func FindShell() (string, error) {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if executable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/bin/sh", "/usr/bin/sh"} {
		if executable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "", errors.New("no shell was found: neither bash nor sh is installed (or on PATH)")
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
