package search

import (
	"fmt"
	"os"
	"os/exec"
)

// LookRg finds ripgrep: the configured path if given, else rg on PATH.
func LookRg(configured string) (string, error) {
	if configured != "" {
		fi, err := os.Stat(configured)
		if err != nil {
			return "", fmt.Errorf("the configured rgPath %s: %w", configured, err)
		}
		if fi.IsDir() || !executable(configured, fi) {
			return "", fmt.Errorf("the configured rgPath %s is not an executable file", configured)
		}
		return configured, nil
	}
	p, err := exec.LookPath("rg")
	if err != nil {
		return "", fmt.Errorf("ripgrep (rg) is not installed or not on PATH")
	}
	return p, nil
}
