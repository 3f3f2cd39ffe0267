package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Where nothing hides the host's Unix sockets (the landlock level has no
// mount namespace, and Landlock before ABI 9 does not judge connect on
// pathname sockets nor, before ABI 6, abstract ones), a seccomp filter
// refuses to make a Unix socket at all: the Docker socket, the session
// bus and the ssh agent are then out of reach, with or without network.
// socketpair stays allowed (pipes between a program's own processes),
// and so does everything else. Programs of another ABI than the native
// one (32-bit x86 on amd64) get every system call refused: their socketcall
// could make a socket the filter does not see.

// The layout of struct seccomp_data.
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArg0 = 16 // low 32 bits on little-endian machines
)

// x32Bit marks the x32 ABI's system calls on amd64, which share its
// architecture number.
const x32Bit = 0x40000000

// nativeSeccomp is the architecture number and the socket system call of
// this machine, ok false where the filter is not known.
func nativeSeccomp() (arch, socket uint32, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, 41, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, 198, true
	}
	return 0, 0, false
}

// unixSocketFilter is the BPF program.
func unixSocketFilter() ([]unix.SockFilter, bool) {
	arch, socket, ok := nativeSeccomp()
	if !ok {
		return nil, false
	}
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)&unix.SECCOMP_RET_DATA
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	x32 := uint32(x32Bit)
	if runtime.GOARCH != "amd64" {
		x32 = 0xffffffff // no such calls
	}
	return []unix.SockFilter{
		/* 0 */ stmt(ld, seccompArch),
		/* 1 */ jump(jeq, arch, 1, 0),
		/* 2 */ stmt(ret, deny), // another ABI
		/* 3 */ stmt(ld, seccompNr),
		/* 4 */ jump(jge, x32, 4, 0), // x32: deny
		/* 5 */ jump(jeq, socket, 0, 2),
		/* 6 */ stmt(ld, seccompArg0),
		/* 7 */ jump(jeq, unix.AF_UNIX, 1, 0),
		/* 8 */ stmt(ret, unix.SECCOMP_RET_ALLOW),
		/* 9 */ stmt(ret, deny),
	}, true
}

// errNoFilter: the filter is not known for this machine's architecture.
var errNoFilter = fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)

// refuseUnixSockets installs the filter on the calling thread, which
// must have no_new_privs set; what it starts inherits it.
func refuseUnixSockets() error {
	prog, ok := unixSocketFilter()
	if !ok {
		return errNoFilter
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("installing the seccomp filter: %w", err)
	}
	return nil
}
