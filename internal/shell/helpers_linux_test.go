package shell

// alive reports whether pid is a live process (a zombie is dead: where
// nothing reaps orphans it lingers in /proc, doing nothing; so is one
// that is in the middle of exiting).
func alive(pid int) bool {
	st, ok := procStat(pid)
	return ok && !st.dead()
}
