package main

// PLACEHOLDER until the daemon lands.
func runServe(args []string) int { return 1 }
