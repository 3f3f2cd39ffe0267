//go:build race

package mcp_test

// raceEnabled: the binary under test is built with the race detector too.
const raceEnabled = true
