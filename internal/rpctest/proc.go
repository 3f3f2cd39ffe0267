package rpctest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcKiB reads a memory figure of a process, in KiB, from /proc/PID/status
// (Linux): "VmRSS" for its resident set now, "VmHWM" for its peak. Where
// there is no /proc it returns the error of reading it.
func ProcKiB(pid int, field string) (int, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
