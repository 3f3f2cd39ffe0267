// Package shell runs the commands of Tether's shell tool and supervises
// them until nothing of theirs is left.
//
// A command runs with `bash -c` (plain sh where bash is missing) in its own
// process group, stdin closed, stdout and stderr combined into one pipe.
// When it ends, times out or is cancelled, the whole group gets SIGTERM,
// then SIGKILL after a grace period; so do the processes that left the
// group (setsid, a daemon's double fork), found by a marker variable in
// their environment. The output is kept in bounded memory, head and tail
// (Capture), so a command that prints megabytes costs kilobytes and its
// last error survives.
//
// Jobs runs background commands whose output goes to log files under the
// XDG state folder, and stops them all when the daemon closes it; a daemon
// that died without closing is cleaned up after by the next one.
//
// The cmdline subpackage reads a command line without running it: the
// programs it would run (for approvals) and whether it is a read-only form
// that may run without asking.
package shell
