//go:build !linux

package main

// stdinIsTerminal is only known on Linux; elsewhere /dev/tty alone decides.
func stdinIsTerminal() bool { return false }
