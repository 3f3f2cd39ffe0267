package shell

import (
	"strings"
	"sync"
)

// live counts the running commands by marker, so that a process that
// carries the marker of a command still running is left to that command.
var live = struct {
	sync.Mutex
	m map[string]int
}{m: map[string]int{}}

func markLive(marker string, delta int) {
	live.Lock()
	defer live.Unlock()
	if live.m[marker] += delta; live.m[marker] <= 0 {
		delete(live.m, marker)
	}
}

// liveMarker reports whether marker is a running command's.
func liveMarker(marker string) bool {
	live.Lock()
	defer live.Unlock()
	return live.m[marker] > 0
}

// markerIn finds the value of markerVar in a process's environment block
// (NUL-separated KEY=VALUE entries), "" when it has none.
func markerIn(env []byte) string {
	prefix := markerVar + "="
	for _, e := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(e, prefix); ok {
			return v
		}
	}
	return ""
}
