//go:build !linux

package overlay

import (
	"os"
	"time"
)

// Without overlays there is no layer to take anything in from.

func (l Layer) ChangedSince(*os.Root, string, time.Time) (bool, error) { return false, ErrUnsupported }

func (l Layer) Sync() error { return ErrUnsupported }

func OpenUpper(string) (*os.File, error) { return nil, ErrUnsupported }

func StripUpper(string) error { return ErrUnsupported }

// Mover has nothing to move without overlays.
type Mover struct{}

func NewMover() *Mover { return &Mover{} }

func (m *Mover) Move(string, *os.Root, string) error { return ErrUnsupported }

func (m *Mover) Close() {}
