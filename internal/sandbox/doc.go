// Package sandbox starts a command confined: it may write the workspace
// folders, a private /tmp and the build caches, read the system's folders
// and the toolchain, and nothing else; it sees none of the user's secrets,
// reaches no network unless allowed, and cannot signal, trace or inspect a
// process outside.
//
// On Linux there are two levels. At LevelFull Tether re-executes its own
// binary as the first process of new user, mount, network, pid and IPC
// namespaces (the way bubblewrap and runc do it: Go cannot run code
// between fork and exec). That process builds the command's view of the
// file system from the host's, read-only, with the workspace folders bound
// writable (or seen through an overlay whose upper layer is the caller's,
// see Folder), the home folder replaced by an empty read-only one with the
// toolchain bound back, fresh /proc, /dev and /tmp, and /run hidden; it
// then pivots into that view, applies Landlock as a second wall, drops
// every capability and starts the shell as its child, whose signals it
// forwards and whose exit status it reports. At LevelLandlock the same
// binary only applies Landlock (the file rules, TCP and, where the kernel
// has them, abstract sockets and signals) and then becomes the shell: no
// namespaces, so it works where user namespaces are refused. LevelNone
// runs the command as it is.
//
// On macOS the command runs under sandbox-exec with a Seatbelt profile of
// the same rules (Profile). Windows has no sandbox.
//
// Detect finds the strongest level this machine offers by running the
// real set-up once, and caches the answer.
//
// The init side is an init function of this package: any program that
// links it (tether itself, and every test binary that runs commands) can
// be re-executed as a sandbox's first process. It acts only when the
// environment names the descriptors that carry its instructions, and
// returns at once otherwise.
package sandbox
