// Package shell runs the commands of Tether's shell tool and supervises
// them until nothing of theirs is left.
//
// On Linux and macOS a command runs with `bash -c` (plain sh where bash is
// missing) in its own process group, stdin closed, stdout and stderr
// combined into one pipe. When it ends, times out or is cancelled, every
// process it started gets SIGTERM, then SIGKILL after a grace period.
// Those are found by ancestry, not only by group: on Linux the daemon is a
// child subreaper, so a process that starts its own session, clears its
// environment and loses its parent is handed to the daemon and still found
// (see tree_linux.go); on macOS the shell's descendants are found while
// their parents live. A marker variable in the environment finds what
// left the tree before that (a daemon that died). On Windows a command
// runs in PowerShell inside a Job Object that is terminated as a whole.
//
// The output is kept in bounded memory, head and tail (Capture), so a
// command that prints megabytes costs kilobytes and its last error
// survives.
//
// Jobs runs background commands whose output goes to log files under the
// XDG state folder, and stops them all when the daemon closes it; a daemon
// that died without closing is cleaned up after by the next one: its
// cgroup (Linux, where one can be made), the process groups it recorded,
// and the processes carrying its marker.
//
// The cmdline subpackage reads a command line without running it: the
// programs it would run (for approvals) and whether it is a read-only form
// that may run without asking.
package shell
