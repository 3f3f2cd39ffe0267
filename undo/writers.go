package undo

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Only a process that dies while it writes the store leaves debris in it
// (a half-written blob, a blob not yet recorded, a collection cut short).
// Reading every folder of contents to find such debris costs a start
// several milliseconds, so each Store that writes says so first with a
// marker named after its process, removed when it closes: a marker whose
// process is gone is a writer that died, and only then does the next Store
// to open the folder sweep the contents.

// writersDir is where the markers live.
func (s *Store) writersDir() string { return filepath.Join(s.dir, "writers") }

// writing marks this Store as a writer before its first write, once.
// Called with the lock held. A marker that cannot be made only costs the
// sweep after a crash, so it is logged, not returned.
func (s *Store) writing() {
	s.markerMu.Lock()
	defer s.markerMu.Unlock()
	if s.marker != "" {
		return
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := filepath.Join(s.writersDir(), strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(b[:]))
	if err := os.MkdirAll(s.writersDir(), 0o700); err == nil {
		err = os.WriteFile(name, nil, 0o600)
		if err == nil {
			s.marker = name
			return
		}
	}
	s.marker = "-" // tried; do not try on every write
	s.log.Warn("undo: marking the checkpoint store as being written", "dir", s.dir)
}

// orphanedContent notes that a change left saved content that no
// checkpoint uses any more (a dropped checkpoint or entry), for the next
// Store that opens the folder to sweep. The note is a marker no process
// owns (pid 0), so it counts as a dead writer's. Called with the lock held.
func (s *Store) orphanedContent() {
	if err := os.MkdirAll(s.writersDir(), 0o700); err == nil {
		err = os.WriteFile(filepath.Join(s.writersDir(), "0-orphaned"), nil, 0o600)
		if err == nil {
			return
		}
	}
	s.log.Warn("undo: noting content to sweep", "dir", s.dir)
}

// deadWriters lists the markers of writers whose process is gone. Called
// with the lock held.
func (s *Store) deadWriters() []string {
	names, err := os.ReadDir(s.writersDir())
	if err != nil {
		return nil
	}
	var dead []string
	for _, n := range names {
		pidText, _, _ := strings.Cut(n.Name(), "-")
		if pid, err := strconv.Atoi(pidText); err != nil || pid <= 0 || !fsatomic.ProcessAlive(pid) {
			dead = append(dead, filepath.Join(s.writersDir(), n.Name()))
		}
	}
	return dead
}

// doneWriting removes this Store's marker. Called as it closes.
func (s *Store) doneWriting() {
	s.markerMu.Lock()
	defer s.markerMu.Unlock()
	if s.marker != "" && s.marker != "-" {
		if err := os.Remove(s.marker); err != nil && !os.IsNotExist(err) {
			s.log.Warn("undo: removing the store's writer marker", "path", s.marker, "err", err)
		}
	}
	s.marker = ""
}
