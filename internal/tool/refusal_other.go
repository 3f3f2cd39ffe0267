//go:build !unix && !windows

package tool

// actionableErrno knows no system errors on this platform: only the
// portable ones of Actionable are told to the model as its to act on.
func actionableErrno(error) bool { return false }
