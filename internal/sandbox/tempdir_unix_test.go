//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A private temporary folder left by a process that is gone is removed
// by the next one that makes one; a live process's is kept.
func TestStaleTempFoldersAreSwept(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale, err := os.MkdirTemp("", tempPrefix+strconv.Itoa(gone.Process.Pid)+"-")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "left"), []byte("x"), 0o600)
	live, err := os.MkdirTemp("", tempPrefix+"1-") // pid 1 never goes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)
	sweepTempDirs()
	if _, err := os.Stat(stale); err == nil {
		os.RemoveAll(stale)
		t.Error("the folder of a process that is gone was kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("the folder of a live process was removed")
	}
}
