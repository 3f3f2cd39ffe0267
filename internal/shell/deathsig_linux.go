package shell

import "syscall"

// setParentDeathSignal asks the kernel to kill the shell if the daemon dies
// without cleaning up (SIGKILL, a crash). It covers the shell only; what the
// shell started is found by its marker when the next daemon starts (see
// Jobs). Strictly the signal follows the OS thread that started the child,
// and the Go runtime does not end its threads while the program runs, so
// in practice it follows the daemon.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
