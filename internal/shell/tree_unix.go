//go:build unix && !linux && !darwin

package shell

import (
	"os/exec"
	"syscall"
)

// On the BSDs and other Unix systems a command's processes are found by
// their process group only: one that leaves the group is out of reach.

type tree struct{}

func (tree) release() {}

func prepareTree() {}

func setParentDeathSignal(*syscall.SysProcAttr) {}

func startInTree(cmd *exec.Cmd, _ Spec) (*exec.Cmd, tree, error) { return cmd, tree{}, start(cmd) }

func adoptedAny() bool { return false }

const recordGroups = true

func isolationName() string {
	return "process groups only (a process that leaves its command's group cannot be found on this system)"
}

// members stands for the whole group by its negative id, which is how
// signalPid signals a group.
func (p *Process) members() []int {
	if signalGroup(p.pgid, 0) {
		return []int{-p.pgid}
	}
	return nil
}

func descendants(int) []int          { return nil }
func procStart(int) (uint64, bool)   { return 0, false }
func markedProcs(string, bool) []int { return nil }

// ThisPlatform describes a Unix system with process groups only.
func ThisPlatform() Platform {
	return Platform{Shell: "sh -c", POSIX: true,
		Limits: "On this system a process that leaves the command's process group cannot be found, and may keep running."}
}

// sweepAdopted has nothing to do: no orphan is ever handed to the daemon here.
func sweepAdopted() {}
