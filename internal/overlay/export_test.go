package overlay

// ReleaseWithoutRemoving lets go of a set's locks and leaves its folders,
// as a process that dies does.
func ReleaseWithoutRemoving(s *Set) {
	for _, l := range s.locks {
		l.Close()
	}
	s.locks, s.dirs = nil, nil
}
