package measure

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ProcCPU reads the user and system CPU time another process has used,
// from /proc (Linux).
func ProcCPU(pid int) (time.Duration, error) { return statTicks(pid, 11, 12) }

// ProcChildrenCPU reads the user and system CPU time of the children
// another process has waited for (its ripgrep runs, its commands), from
// /proc (Linux): what ProcCPU leaves out.
func ProcChildrenCPU(pid int) (time.Duration, error) { return statTicks(pid, 13, 14) }

// statTicks sums two fields of /proc/PID/stat that count clock ticks,
// numbered from 0 after the command name.
func statTicks(pid, a, b int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(f) <= max(a, b) {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	x, err1 := strconv.Atoi(f[a])
	y, err2 := strconv.Atoi(f[b])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(x+y) * time.Second / ticksPerSecond, nil
}
