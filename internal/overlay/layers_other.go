//go:build !linux

package overlay

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// Elsewhere no overlay is mounted, so there is nothing to allocate or sweep.
const supported = false

func lockFile(string, bool) (*os.File, error) { return nil, errors.ErrUnsupported }

func deviceOf(fs.FileInfo) uint64 { return 0 }

func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }

func canHoldLayers(string) bool { return false }
