package main

import "github.com/tether-dev/tether/internal/sandbox"

// startSandboxProbe starts the sandbox's probe when commands may run
// (shellSandbox is not off), so that the first one does not wait for all
// of it.
func startSandboxProbe(mode string) {
	if mode != sandbox.SettingOff {
		sandbox.StartDetect()
	}
}
