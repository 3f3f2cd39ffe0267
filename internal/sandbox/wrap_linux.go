package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// selfExe is how the init is started: this very binary, even if the file
// on disk was replaced since (a rebuilt Tether keeps running as itself).
const selfExe = "/proc/self/exe"

// Wrap rewrites cmd, whose Path, Args, Dir and Env are the command to run
// and whose SysProcAttr the caller has set (process group, parent-death
// signal), so that it starts confined at the spec's level: this binary
// re-executed as the sandbox's init, with the spec and the command handed
// over through a pipe. overlays are the folders the command alone sees
// through an overlay (see Command). At LevelNone it changes nothing and
// returns nil. After cmd.Start the caller calls Started, and after the
// process ended, Finish; if Start fails, Close.
func (s Spec) Wrap(cmd *exec.Cmd, overlays ...Folder) (*Launch, error) {
	if !s.Level.Confined() {
		return nil, nil
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	run := Command{Path: cmd.Path, Args: cmd.Args, Dir: cmd.Dir, Env: env, Grace: s.Grace, Overlays: overlays}
	l, err := s.Prepare(cmd)
	if err != nil {
		return nil, err
	}
	if err := l.Run(run); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Prepare rewrites cmd to start a sandbox's init for the spec, ahead of
// its command: the init sets up all it can, then waits for Run. cmd's
// Path, Args and Env are replaced; its Dir is where the init starts (any
// folder that exists); its SysProcAttr is the caller's, as for Wrap. Once
// the process has started, the caller calls Launched; a sandbox that is
// not needed after all is ended by Close, which the init takes for "no
// command".
func (s Spec) Prepare(cmd *exec.Cmd) (*Launch, error) {
	if s.Level != LevelFull && s.Level != LevelLandlock {
		return nil, fmt.Errorf("%w: unknown level %q", ErrSetup, s.Level)
	}
	l := &Launch{level: s.Level, guard: guardGit(s.Folders)}
	if s.Level == LevelLandlock {
		dir, err := makeTempDir()
		if err != nil {
			return nil, fmt.Errorf("%w: making its temporary folder: %v", ErrSetup, err)
		}
		s.TempDir, l.tempDir = dir, dir
	}
	msg, err := json.Marshal(setupMessage{Spec: s})
	if err != nil {
		l.Close()
		return nil, err
	}
	if len(msg) > maxMessage {
		l.Close()
		return nil, fmt.Errorf("%w: its instructions are too long (%d bytes; too many writable paths?)", ErrSetup, len(msg))
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		l.Close()
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		l.Close()
		return nil, err
	}
	l.spec, l.status, l.lines, l.childEnds = specW, statusR, bufio.NewReader(statusR), []*os.File{specR, statusW}
	if _, err := specW.Write(append(msg, '\n')); err != nil {
		l.Close()
		return nil, err
	}

	first := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, specR, statusW)
	// The init keeps the environment it is given (the markers of the
	// daemon's processes among it); the command's comes with the command.
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], initEnv+"="+strconv.Itoa(first)+","+strconv.Itoa(first+1))
	cmd.Args = append([]string{"tether-sandbox"}, cmd.Args...)
	cmd.Path = selfExe
	cmd.Err = nil

	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if s.Level == LevelFull {
		namespaces(cmd.SysProcAttr, s.Network)
	}
	return l, nil
}

// namespaces asks for the full sandbox's namespaces: a user namespace in
// which the user keeps their own uid and gid (setgroups denied, as an
// unprivileged user namespace requires), mount, pid and IPC namespaces,
// and a network namespace unless the command may use the network. A user
// other than root keeps, through ambient capabilities, the ones the init
// needs across its exec: mounting, the loopback, emptying the bounding
// set, and what overlayfs needs of whoever mounts it (it works with the
// mounter's credentials: its scratch folder is made mode 000, copy-up
// keeps owners and modes). The init drops them all before the command
// starts; an overlay keeps the credentials it was mounted with.
func namespaces(a *syscall.SysProcAttr, network bool) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	if !network {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	if uid != 0 {
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP,
			unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH, unix.CAP_CHOWN, unix.CAP_FOWNER, unix.CAP_FSETID, unix.CAP_MKNOD}
	}
}
