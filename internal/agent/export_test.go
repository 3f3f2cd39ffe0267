package agent

import "github.com/tether-dev/tether/internal/tool"

// WorkWaiters is how many work children of c's request hold or wait for
// the request's lock.
func WorkWaiters(c *tool.Call) int {
	workLocks.mu.Lock()
	defer workLocks.mu.Unlock()
	if e := workLocks.m[lockKey(c)]; e != nil {
		return e.refs
	}
	return 0
}
