package mcp

// For the tests of package mcp_test.
var (
	ProcessGone = processGone
	KillProcess = killProcess
)
