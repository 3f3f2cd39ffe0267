package main

import (
	"fmt"
	"os"
	"runtime"
)

// versionLine names this build: tether's version, the Go runtime it was
// built with, and the platform.
func versionLine() string {
	return fmt.Sprintf("tether %s (%s %s/%s)", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func runVersion(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "tether version: takes no arguments, got %q\n", args)
		return 2
	}
	fmt.Println(versionLine())
	return 0
}
