//go:build !linux

package main

import "os"

// reserveStdout returns stdout; only Linux moves it aside (see stdout_linux.go).
func reserveStdout() *os.File { return os.Stdout }

// reserveStdin returns stdin; only Linux moves it aside (see stdout_linux.go).
func reserveStdin() *os.File { return os.Stdin }
