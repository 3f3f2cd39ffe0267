//go:build !linux

package main

func cleanupBinary() {}
