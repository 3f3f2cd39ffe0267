package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Securebits that keep capabilities from coming back: uid 0 gets none on
// exec, none survive a change of uid, no ambient capability can be
// raised; each locked.
const lockedSecurebits = 1<<0 | 1<<1 | // SECBIT_NOROOT(_LOCKED)
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP(_LOCKED)
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE(_LOCKED)

// dropPrivileges leaves the calling thread, and so every program it
// starts (the init runs in package initialisation, on the main thread,
// which is where it forks or execs the command), without capabilities
// for good: the bounding set emptied
// (a process that is uid 0 in its namespace, as on a machine where Tether
// runs as root, would otherwise regain them on exec), ambient and
// inheritable cleared, securebits locked, then permitted and effective
// emptied, and no_new_privs set. A process that holds no capability to
// begin with (an ordinary user at the landlock level) cannot change the
// bounding set or the securebits and has nothing to drop there.
func dropPrivileges() error {
	have := hasCap(unix.CAP_SETPCAP)
	if have {
		for c := 0; c <= lastCap(); c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
			}
		}
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
			return fmt.Errorf("locking the securebits: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing the capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	return nil
}

// lastCap is the highest capability number this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// hasCap reports whether the calling thread holds capability c in its
// effective set.
func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0
}
